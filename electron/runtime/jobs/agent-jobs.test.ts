import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Job } from '../../../shared/protocol/index.js';
import { createModelClient } from '../../model/create-model-client.js';
import { JobTestKit } from '../../../test-support/job-test-kit.js';
import { createGate, startMockModelServer, type MockModelServer, type MockScript } from '../../../test-support/mock-model/index.js';
import { mockProvider } from '../../../test-support/mock-model/model-test-kit.js';
import { CONTINUE_PROMPT } from '../../../shared/agent-job-prompts.js';

/**
 * Agent jobs end to end against the mock model: a thread with a goal that
 * takes turns by itself, through the real turn engine, model client,
 * commands and approvals.
 */
let mock: MockModelServer;
const kits: JobTestKit[] = [];
const homes: string[] = [];
beforeEach(async () => {
  mock = await startMockModelServer();
});
afterEach(async () => {
  for (const kit of kits.splice(0)) await kit.runtime.shutdown();
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
  await mock.close();
});

function newHome(): string {
  const home = JobTestKit.home();
  homes.push(home);
  return home;
}
function kit(home: string): JobTestKit {
  const provider = mockProvider(mock, 'chat');
  const k = new JobTestKit(home, {
    bindModel: async () => ({ client: createModelClient(provider), model: 'deepseek-chat', contextWindow: 128_000 }),
  });
  kits.push(k);
  return k;
}

const call = (id: string, name: string, args: unknown): MockScript => [
  { type: 'toolCalls', calls: [{ id, name, arguments: JSON.stringify(args) }] },
  { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 20, outputTokens: 5 } },
];
const say = (text: string): MockScript => [{ type: 'text', text }, { type: 'finish', usage: { inputTokens: 20, outputTokens: 5 } }];
const userTexts = (k: JobTestKit, threadId: string) =>
  k.call('thread/read', { threadId, includeTurns: true }).then(({ thread }) =>
    thread.turns.flatMap((turn) => turn.items.flatMap((item) => (item.type === 'userMessage' ? item.content.map((c) => c.text) : []))),
  );
const ended = (job: Job) => job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled';

describe('agent jobs', () => {
  it('take turns until the agent marks the goal complete, with its reported progress', async () => {
    const home = newHome();
    const k = kit(home);
    mock.enqueue(
      call('p1', 'report_progress', { percent: 40, note: 'read the code' }),
      say('Halfway there.'),
      call('g1', 'update_goal', { status: 'complete' }),
      say('Done: the goal is achieved.'),
    );
    const { job } = await k.call('job/create', { kind: 'agent', cwd: home, objective: 'Tidy the README', tokenBudget: 10_000 });
    expect(job).toMatchObject({ kind: 'agent', name: 'Tidy the README', command: null, agent: { objective: 'Tidy the README', tokenBudget: 10_000, goalStatus: 'active', turns: 0 } });
    expect(job.threadId).toEqual(expect.any(String));

    const done = await k.untilJob(job.id, 'completed', ended);
    expect(done).toMatchObject({ status: 'completed', progress: 100, detail: 'goal complete after 2 turns', agent: { goalStatus: 'complete', turns: 2, tokensUsed: 75, waitingApproval: null } });
    expect(k.updates(job.id).some((j) => j.status === 'running' && j.progress === 40)).toBe(true);

    const texts = await userTexts(k, job.threadId!);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain('Tidy the README');
    expect(texts[1]).toBe(CONTINUE_PROMPT);
    // The goal tools are offered to the model, and the goal is in its instructions.
    const tools = (mock.requests[0]!.body!.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(tools).toEqual(expect.arrayContaining(['update_goal', 'report_progress']));
    expect((await k.call('thread/goal/get', { threadId: job.threadId! })).goal?.status).toBe('complete');
    expect(mock.requests).toHaveLength(4);
  });

  it('stop at their token budget: the goal is budgetLimited and the job fails without retrying', async () => {
    const home = newHome();
    const k = kit(home);
    mock.enqueue([{ type: 'text', text: 'Working…' }, { type: 'finish', usage: { inputTokens: 80, outputTokens: 40 } }]);
    const { job } = await k.call('job/create', { kind: 'agent', cwd: home, objective: 'Rewrite everything', tokenBudget: 100 });
    const done = await k.untilJob(job.id, 'failed', ended);
    expect(done).toMatchObject({
      status: 'failed',
      detail: 'token budget spent: 120 of 100 tokens',
      nextRetryAt: null,
      agent: { goalStatus: 'budgetLimited', tokensUsed: 120, turns: 1 },
    });
    expect(mock.requests).toHaveLength(1);

    // Raising the goal's budget in the conversation lets "retry" go on where it stopped.
    await k.call('thread/goal/set', { threadId: job.threadId!, tokenBudget: 10_000 });
    mock.enqueue(call('g1', 'update_goal', { status: 'complete' }), say('Finished within the new budget.'));
    await k.call('job/retry', { jobId: job.id });
    const resumed = await k.untilJob(job.id, 'completed', (j) => j.status === 'completed');
    expect(resumed).toMatchObject({ runs: 2, agent: { tokenBudget: 10_000, goalStatus: 'complete', turns: 2 } });
  });

  it('stop at their time budget: the running turn is interrupted and the goal is budgetLimited', async () => {
    const home = newHome();
    const k = kit(home);
    const gate = createGate();
    mock.enqueue([{ type: 'waitFor', release: gate.promise }, ...say('too late')]);
    const { job } = await k.call('job/create', { kind: 'agent', cwd: home, objective: 'Think for a long time', timeBudgetMs: 400 });
    const done = await k.untilJob(job.id, 'failed', ended);
    gate.release();
    expect(done).toMatchObject({ status: 'failed', nextRetryAt: null, agent: { goalStatus: 'budgetLimited', turns: 1, timeBudgetMs: 400 } });
    expect(done.detail).toMatch(/^time budget spent: \d+ ms of 400 ms$/);
    expect(done.agent!.timeUsedMs).toBeGreaterThanOrEqual(400);
    const { thread } = await k.call('thread/read', { threadId: job.threadId!, includeTurns: true });
    expect(thread.turns.map((t) => t.status)).toEqual(['interrupted']);
  });

  it('fail with the model error when a turn fails, and retry on the same thread at the retry time', async () => {
    const home = newHome();
    const k = kit(home);
    mock.enqueue([{ type: 'httpError', status: 500, message: 'upstream exploded' }], call('g1', 'update_goal', { status: 'complete' }), say('Recovered.'));
    const { job } = await k.call('job/create', { kind: 'agent', cwd: home, objective: 'Survive a bad gateway', maxAttempts: 1 });
    const failed = await k.untilJob(job.id, 'failed', (j) => j.status === 'failed');
    expect(failed.detail).toBe('turn 1 failed: The provider had a server error. Try again shortly.');
    expect(failed.nextRetryAt).toEqual(expect.any(Number));
    const done = await k.untilJob(job.id, 'completed on retry', (j) => j.status === 'completed');
    expect(done).toMatchObject({ status: 'completed', runs: 2, attempt: 1, threadId: job.threadId, agent: { turns: 2 } });
  });

  it('wait for the person on a command it may not run unasked, then go on once approved', async () => {
    const home = newHome();
    const k = kit(home);
    mock.enqueue(call('c1', 'exec_command', { cmd: 'touch made-by-agent.txt' }), call('g1', 'update_goal', { status: 'complete' }), say('Made the file.'));
    const { job } = await k.call('job/create', {
      kind: 'agent',
      cwd: home,
      objective: 'Create made-by-agent.txt',
      approvalPolicy: 'untrusted',
      sandbox: 'danger-full-access',
    });
    const waiting = await k.untilJob(job.id, 'waiting for approval', (j) => j.agent?.waitingApproval != null);
    expect(waiting).toMatchObject({ status: 'running', detail: 'waiting for approval: touch made-by-agent.txt' });
    expect(fs.existsSync(path.join(home, 'made-by-agent.txt'))).toBe(false);
    const [pending] = (await k.call('approval/list', { threadId: job.threadId! })).data;
    expect(pending?.requestId).toBe(waiting.agent!.waitingApproval!.requestId);

    await k.call('approval/answer', { requestId: pending!.requestId, decision: 'accept' });
    const done = await k.untilJob(job.id, 'completed', ended);
    expect(done).toMatchObject({ status: 'completed', agent: { waitingApproval: null, turns: 1 } });
    expect(fs.existsSync(path.join(home, 'made-by-agent.txt'))).toBe(true);
    const { history } = await k.call('job/read', { jobId: job.id });
    expect(history.map((h) => h.phase)).toEqual(expect.arrayContaining(['waiting_for_approval', 'approval_settled', 'completed']));
  });

  it('run allowed command prefixes unasked', async () => {
    const home = newHome();
    const k = kit(home);
    mock.enqueue(call('c1', 'exec_command', { cmd: 'touch allowed.txt' }), call('g1', 'update_goal', { status: 'complete' }), say('Done.'));
    const { job } = await k.call('job/create', {
      kind: 'agent',
      cwd: home,
      objective: 'Create allowed.txt',
      approvalPolicy: 'untrusted',
      sandbox: 'danger-full-access',
      allowCommands: ['touch'],
    });
    const done = await k.untilJob(job.id, 'completed', ended);
    expect(done.status).toBe('completed');
    expect(k.updates(job.id).every((j) => j.agent?.waitingApproval === null)).toBe(true);
    expect(fs.existsSync(path.join(home, 'allowed.txt'))).toBe(true);
  });

  it('pause interrupts the running turn and takes no new one; resume goes on; a blocked goal fails it with the reason', async () => {
    const home = newHome();
    const k = kit(home);
    const gate = createGate();
    mock.enqueue([{ type: 'waitFor', release: gate.promise }, ...say('never seen')], call('b1', 'update_goal', { status: 'blocked', reason: 'needs a password' }), say('I am blocked.'));
    const { job } = await k.call('job/create', { kind: 'agent', cwd: home, objective: 'Deploy', maxAttempts: 0 });
    await k.untilJob(job.id, 'turn 1', (j) => j.detail === 'turn 1');
    await mock.waitForRequests(1);
    const paused = await k.call('job/pause', { jobId: job.id });
    expect(paused.job).toMatchObject({ status: 'paused', detail: 'paused: no new turns until it is resumed' });
    const { thread } = await k.call('thread/read', { threadId: job.threadId!, includeTurns: true });
    expect(thread.turns.map((t) => t.status)).toEqual(['interrupted']);
    expect(mock.requests).toHaveLength(1);
    gate.release();

    await k.call('job/resume', { jobId: job.id });
    const done = await k.untilJob(job.id, 'failed', ended);
    expect(done).toMatchObject({ status: 'failed', detail: 'blocked: needs a password', agent: { goalStatus: 'blocked', turns: 2 } });
  });

  it('pause when the person stops their turn in the conversation, and go on when resumed', async () => {
    const home = newHome();
    const k = kit(home);
    const gate = createGate();
    mock.enqueue([{ type: 'waitFor', release: gate.promise }, ...say('never seen')], call('g1', 'update_goal', { status: 'complete' }), say('Done.'));
    const { job } = await k.call('job/create', { kind: 'agent', cwd: home, objective: 'Be stoppable' });
    await k.untilJob(job.id, 'turn 1', (j) => j.detail === 'turn 1');
    await mock.waitForRequests(1);
    const { thread } = await k.call('thread/read', { threadId: job.threadId!, includeTurns: true });
    await k.call('turn/interrupt', { threadId: job.threadId!, turnId: thread.turns[0]!.id });
    const paused = await k.untilJob(job.id, 'paused', (j) => j.status === 'paused');
    expect(paused.detail).toBe('paused: its turn was stopped in the conversation; resume the job to go on');
    gate.release();
    await k.call('job/resume', { jobId: job.id });
    const done = await k.untilJob(job.id, 'completed', ended);
    expect(done).toMatchObject({ status: 'completed', agent: { turns: 2 } });
  });

  it('cancel ends the turn and the job', async () => {
    const home = newHome();
    const k = kit(home);
    const gate = createGate();
    mock.enqueue([{ type: 'waitFor', release: gate.promise }, ...say('never seen')]);
    const { job } = await k.call('job/create', { kind: 'agent', cwd: home, objective: 'Loop forever' });
    await k.untilJob(job.id, 'turn 1', (j) => j.detail === 'turn 1');
    await mock.waitForRequests(1);
    const cancelled = await k.call('job/cancel', { jobId: job.id });
    expect(cancelled.job).toMatchObject({ status: 'cancelled', detail: 'cancelled' });
    expect((await k.call('thread/read', { threadId: job.threadId!, includeTurns: true })).thread.turns.map((t) => t.status)).toEqual(['interrupted']);
    gate.release();
  });

  it('after a restart, a job that waited for approval says the approval ended and is re-queued on the same thread', async () => {
    const home = newHome();
    const first = kit(home);
    mock.enqueue(call('c1', 'exec_command', { cmd: 'touch later.txt' }));
    const { job } = await first.call('job/create', { kind: 'agent', cwd: home, objective: 'Create later.txt', approvalPolicy: 'untrusted', sandbox: 'danger-full-access' });
    await first.untilJob(job.id, 'waiting for approval', (j) => j.agent?.waitingApproval != null);
    first.runtime.close();

    mock.enqueue(call('g1', 'update_goal', { status: 'complete' }), say('Done after the restart.'));
    const second = kit(home);
    const done = await second.untilJob(job.id, 'completed after restart', ended);
    expect(done).toMatchObject({ status: 'completed', threadId: job.threadId, agent: { turns: 2, waitingApproval: null } });
    const { history } = await second.call('job/read', { jobId: job.id });
    const requeued = history.find((h) => h.phase === 'queued_after_resume');
    expect(requeued?.detail).toBe('interrupted: Wheelhouse stopped during run 1; the approval it waited for (touch later.txt) was ended');
    expect((await userTexts(second, job.threadId!))[1]).toBe(CONTINUE_PROMPT);
    expect(second.runtime.approvals.list()).toEqual([]);
  });

  it('after quitting with jobs kept, go on in the same run on their thread while their goal is active', async () => {
    const home = newHome();
    const first = kit(home);
    const gate = createGate();
    mock.enqueue([{ type: 'waitFor', release: gate.promise }, ...say('never seen')]);
    const { job } = await first.call('job/create', { kind: 'agent', cwd: home, objective: 'Keep going', maxAttempts: 0 });
    await first.untilJob(job.id, 'turn 1', (j) => j.detail === 'turn 1');
    await mock.waitForRequests(1);
    expect(first.runtime.runningJobCount()).toBe(1);
    await first.runtime.shutdown({ jobs: 'keep' });
    kits.splice(kits.indexOf(first), 1);
    gate.release();

    mock.enqueue(call('g1', 'update_goal', { status: 'complete' }), say('Done after the restart.'));
    const second = kit(home);
    const done = await second.untilJob(job.id, 'completed after restart', ended);
    // The same run went on: attempt 1 (of at most 1), not a second run.
    expect(done).toMatchObject({ status: 'completed', runs: 1, maxRuns: 1, agent: { turns: 2, goalStatus: 'complete' } });
    expect((await userTexts(second, job.threadId!))[1]).toBe(CONTINUE_PROMPT);
  });

  it('after quitting with jobs kept, take no new turn when their goal was already complete or blocked', async () => {
    const home = newHome();
    const first = kit(home);
    const gates = [createGate(), createGate()];
    // Each agent sets its goal in its first turn; the reply after that never comes before the quit.
    mock.enqueue(call('g1', 'update_goal', { status: 'complete' }), [{ type: 'waitFor', release: gates[0]!.promise }, ...say('never seen')]);
    const { job: complete } = await first.call('job/create', { kind: 'agent', cwd: home, objective: 'Finish', maxAttempts: 2 });
    await mock.waitForRequests(2);
    mock.enqueue(call('b1', 'update_goal', { status: 'blocked', reason: 'needs a key' }), [{ type: 'waitFor', release: gates[1]!.promise }, ...say('never seen')]);
    const { job: blocked } = await first.call('job/create', { kind: 'agent', cwd: home, objective: 'Deploy', maxAttempts: 2 });
    await mock.waitForRequests(4);
    await first.runtime.shutdown({ jobs: 'keep' });
    kits.splice(kits.indexOf(first), 1);
    for (const gate of gates) gate.release();

    const second = kit(home);
    expect(await second.untilJob(complete.id, 'completed', ended)).toMatchObject({ status: 'completed', runs: 1, agent: { goalStatus: 'complete', turns: 1 } });
    expect(await second.untilJob(blocked.id, 'failed', ended)).toMatchObject({ status: 'failed', runs: 1, nextRetryAt: null, agent: { goalStatus: 'blocked', turns: 1 } });
    expect(mock.requests).toHaveLength(4);
  });

  it('quitting with jobs stopped cancels them, and they do not come back', async () => {
    const home = newHome();
    const first = kit(home);
    const gate = createGate();
    mock.enqueue([{ type: 'waitFor', release: gate.promise }, ...say('never seen')]);
    const { job } = await first.call('job/create', { kind: 'agent', cwd: home, objective: 'Stop me' });
    await first.untilJob(job.id, 'turn 1', (j) => j.detail === 'turn 1');
    await mock.waitForRequests(1);
    await first.runtime.shutdown({ jobs: 'stop' });
    kits.splice(kits.indexOf(first), 1);
    gate.release();
    const second = kit(home);
    expect((await second.call('job/read', { jobId: job.id })).job).toMatchObject({ status: 'cancelled', detail: 'cancelled: stopped when Wheelhouse quit' });
    expect(second.runtime.runningJobCount()).toBe(0);
    expect(mock.requests).toHaveLength(1);
  });

  it('refuse a folder that does not exist, and make no thread', async () => {
    const home = newHome();
    const k = kit(home);
    await expect(k.call('job/create', { kind: 'agent', cwd: path.join(home, 'missing'), objective: 'x' })).rejects.toMatchObject({ code: -32602 });
    expect((await k.call('thread/list', {})).data).toEqual([]);
    expect((await k.call('job/list', {})).data).toEqual([]);
  });
});
