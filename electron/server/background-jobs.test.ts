import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Job, NotificationMessage, RequestMessage, ThreadItem } from '../../shared/protocol/index.js';
import { approvalRequest, execCall, lastToolMessage, textReply, toolCallReply, turnEnd } from '../../test-support/agent-commands.js';
import type { ProtocolPeer } from '../../test-support/protocol-peer.js';
import type { ServeProcess } from '../../test-support/serve-process.js';
import { useServedAgentHomes } from '../../test-support/served-agent-home.js';

/**
 * Background command jobs and the agent, over real WebSockets to `wheelhouse
 * serve` (every message checked against Codex's schema), with real ptys and
 * the mock model: job_start / job_status / job_output across turns, an
 * exec_command that outlives its turn becoming a job, the exec policy and
 * approvals for jobs, and job/deleted reaching a second client.
 */
const served = useServedAgentHomes();
const { client } = served;

/** A job that runs until the test creates `go` in its folder: it cannot end early, however loaded the machine. */
const UNTIL_GO = `'${process.execPath}' -e "setInterval(() => require('fs').existsSync('go') && process.exit(0), 50)"`;

async function serveHome(rules?: string): Promise<{ server: ServeProcess; project: string }> {
  const { home, project } = served.makeHome('wheelhouse-bgjobs-');
  if (rules) {
    fs.mkdirSync(path.join(home, 'rules'), { recursive: true });
    fs.writeFileSync(path.join(home, 'rules', 'test.rules'), rules);
  }
  return { server: await served.serve(home), project };
}

/** The next job/updated (of `jobId`, or of any job) matching `match`. */
async function jobUpdate(peer: ProtocolPeer, match: (job: Job) => boolean, what: string): Promise<Job> {
  const received = await peer.inbox.take(
    (r) => r.kind === 'notification' && r.message.method === 'job/updated' && match((r.message.params as { job: Job }).job),
    what,
  );
  return ((received.message as NotificationMessage).params as { job: Job }).job;
}

/** A thread where the agent's commands run unasked and unsandboxed (the policy itself is tested elsewhere). */
async function trustedThread(peer: ProtocolPeer, project: string): Promise<string> {
  const { thread } = await peer.call('thread/start', { cwd: project, approvalPolicy: 'never', sandbox: 'danger-full-access' });
  return thread.id;
}

describe('background jobs and the agent', () => {
  it('job_start returns at once; a later turn reads the job status and output; the job links to its thread', async () => {
    const { server, project } = await serveHome();
    const alice = await client(server, 'alice');
    const threadId = await trustedThread(alice, project);
    const before = served.mock.requests.length;
    served.mock.enqueue(toolCallReply('job_start', { command: `echo job-began; ${UNTIL_GO}; echo job-finished`, name: 'long build' }), textReply('Started it.'));
    await alice.call('turn/start', { threadId, input: [{ type: 'text', text: 'build in the background' }] });

    // The turn ends while the job still runs (it cannot end before the test says go).
    expect((await turnEnd(alice)).status).toBe('completed');
    const started = lastToolMessage(served.mock, before + 1);
    const jobId = /Started background job (job-\S+) /.exec(started)?.[1];
    expect(jobId, started).toBeTruthy();
    const running = await jobUpdate(alice, (job) => job.id === jobId && job.status === 'running', 'the job running');
    expect(running).toMatchObject({ threadId, name: 'long build', kind: 'command', cwd: fs.realpathSync(project) });
    // The conversation keeps the call as a tool item naming the job.
    const read = await alice.call('thread/read', { threadId, includeTurns: true });
    const item = read.thread.turns.flatMap((t) => t.items).find((i): i is Extract<ThreadItem, { type: 'dynamicToolCall' }> => i.type === 'dynamicToolCall');
    expect(item).toMatchObject({ tool: 'job_start', status: 'completed', success: true });
    expect(item?.contentItems?.[0]).toMatchObject({ text: expect.stringContaining(jobId!) });

    await alice.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'job/output/delta' && (r.message.params as { delta: string }).delta.includes('job-began'),
      'the job output',
    );
    fs.writeFileSync(path.join(project, 'go'), '');
    await jobUpdate(alice, (job) => job.id === jobId && job.status === 'completed', 'the job completed');

    const second = served.mock.requests.length;
    served.mock.enqueue(toolCallReply('job_status', { jobId }, 'call_status'), toolCallReply('job_output', { jobId }, 'call_output'), textReply('It finished.'));
    await alice.call('turn/start', { threadId, input: [{ type: 'text', text: 'how did it go?' }] });
    expect((await turnEnd(alice)).status).toBe('completed');
    expect(lastToolMessage(served.mock, second + 1)).toMatch(new RegExp(`Job ${jobId} \\("long build"\\): completed[\\s\\S]*exit code: 0`));
    const output = lastToolMessage(served.mock, second + 2);
    expect(output).toMatch(/run 1: bytes 0–\d+ of \d+ \(the run has ended\)/);
    expect(output).toContain('job-began');
    expect(output).toContain('job-finished');
    // An unknown job is a result the model reads, not a failed turn.
    const third = served.mock.requests.length;
    served.mock.enqueue(toolCallReply('job_status', { jobId: 'job-nope' }, 'call_nope'), textReply('No such job.'));
    await alice.call('turn/start', { threadId, input: [{ type: 'text', text: 'and that one?' }] });
    expect((await turnEnd(alice)).status).toBe('completed');
    expect(lastToolMessage(served.mock, third + 1)).toMatch(/job not found: job-nope/);
  });

  it('a command that outlives its turn becomes a job: same process, output continues into the job log, pause and resume work', async () => {
    const { server, project } = await serveHome();
    const alice = await client(server, 'alice');
    const threadId = await trustedThread(alice, project);
    served.mock.enqueue(execCall(`echo adopted-start; ${UNTIL_GO}; echo adopted-end`, { yield_time_ms: 300 }), textReply('Left it running.'));
    await alice.call('turn/start', { threadId, input: [{ type: 'text', text: 'start the watcher' }] });
    expect((await turnEnd(alice)).status).toBe('completed');

    const adopted = await jobUpdate(alice, (job) => job.threadId === threadId && job.status === 'running', 'the adopted job');
    expect(adopted).toMatchObject({ kind: 'command', command: `echo adopted-start; ${UNTIL_GO}; echo adopted-end`, runs: 1, maxAttempts: 0 });
    // Its log holds what the command printed before it became a job.
    expect((await alice.call('job/log', { jobId: adopted.id })).data).toContain('adopted-start');
    expect((await alice.call('job/list', {})).data.map((job) => job.id)).toContain(adopted.id);

    expect((await alice.call('job/pause', { jobId: adopted.id })).job.status).toBe('paused');
    expect((await alice.call('job/resume', { jobId: adopted.id })).job.status).toBe('running');
    fs.writeFileSync(path.join(project, 'go'), '');
    await alice.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'job/output/delta' && (r.message.params as { jobId: string; delta: string }).jobId === adopted.id && (r.message.params as { delta: string }).delta.includes('adopted-end'),
      'the adopted job output',
    );
    const done = await jobUpdate(alice, (job) => job.id === adopted.id && job.status === 'completed', 'the adopted job completed');
    expect(done.exitCode).toBe(0);
    const log = (await alice.call('job/log', { jobId: adopted.id })).data;
    expect(log.indexOf('adopted-start')).toBeLessThan(log.indexOf('adopted-end'));
  });

  it('job/create under the exec policy: a forbidden command is refused naming the rule; a prompt one waits for approval, then runs', async () => {
    const { server, project } = await serveHome(
      ['prefix_rule(pattern = ["rm"], decision = "forbidden", justification = "never delete from a job")', 'prefix_rule(pattern = ["touch"], decision = "prompt", justification = "ask before creating files")', ''].join('\n'),
    );
    const alice = await client(server, 'alice');
    const bob = await client(server, 'bob');

    const refused = await alice.request('job/create', { kind: 'command', command: 'rm -rf build', cwd: project });
    expect('error' in refused && refused.error).toMatchObject({ code: -32600, message: expect.stringMatching(/forbids `rm -rf build`.*never delete from a job/), data: { reason: 'policy.forbidden', rule: { pattern: ['rm'] } } });
    expect((await alice.call('job/list', {})).data).toEqual([]);

    // The person's own command the approval mode would question runs unasked (their own action).
    const own = await alice.call('job/create', { kind: 'command', command: 'echo mine > mine.txt', cwd: project });
    await jobUpdate(alice, (job) => job.id === own.job.id && job.status === 'completed', 'the person’s job completed');

    const { job } = await alice.call('job/create', { kind: 'command', command: 'touch approved.txt', cwd: project, name: 'make a file' });
    expect(job).toMatchObject({ status: 'queued', detail: 'waiting for approval' });
    const toAlice = await approvalRequest(alice);
    const toBob: RequestMessage = await approvalRequest(bob);
    expect(toBob.id).toBe(toAlice.id);
    expect(toAlice.params).toMatchObject({ itemId: job.id, command: 'touch approved.txt', availableDecisions: ['accept', 'decline'] });
    expect((await alice.call('approval/list', {})).data.map((a) => a.requestId)).toEqual([toAlice.id]);
    expect(fs.existsSync(path.join(project, 'approved.txt'))).toBe(false);
    expect((await alice.call('job/read', { jobId: job.id })).job.status).toBe('queued');

    bob.sendRaw(JSON.stringify({ id: toBob.id, result: { decision: 'accept' } }));
    await alice.inbox.notification('serverRequest/resolved');
    await jobUpdate(alice, (j) => j.id === job.id && j.status === 'completed', 'the approved job completed');
    expect(fs.existsSync(path.join(project, 'approved.txt'))).toBe(true);
    const phases = (await alice.call('job/read', { jobId: job.id })).history.map((h) => h.phase);
    expect(phases).toEqual(['created', 'waiting_for_approval', 'approved', 'running', 'completed']);

    // Declined: cancelled, never run.
    const second = await alice.call('job/create', { kind: 'command', command: 'touch declined.txt', cwd: project });
    const request = await approvalRequest(alice);
    alice.sendRaw(JSON.stringify({ id: request.id, result: { decision: 'decline' } }));
    const declined = await jobUpdate(alice, (j) => j.id === second.job.id && j.status === 'cancelled', 'the declined job cancelled');
    expect(declined.detail).toMatch(/declined/);
    expect(fs.existsSync(path.join(project, 'declined.txt'))).toBe(false);
  });

  it('job_start under the thread policy: forbidden is a tool result; needing approval the job waits and the model is told', async () => {
    const { server, project } = await serveHome('prefix_rule(pattern = ["rm"], decision = "forbidden", justification = "never delete")\n');
    const alice = await client(server, 'alice');
    const { thread } = await alice.call('thread/start', { cwd: project, approvalPolicy: 'untrusted', sandbox: 'danger-full-access' });
    const before = served.mock.requests.length;
    served.mock.enqueue(
      toolCallReply('job_start', { command: 'rm -rf src' }, 'call_rm'),
      toolCallReply('job_start', { command: 'touch agent.txt' }, 'call_touch'),
      textReply('Waiting for you.'),
    );
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'go' }] });
    const toAlice = await approvalRequest(alice);
    expect((await turnEnd(alice)).status).toBe('completed');
    expect(lastToolMessage(served.mock, before + 1)).toMatch(/forbids `rm -rf src`.*never delete/);
    expect(lastToolMessage(served.mock, before + 2)).toMatch(/waits for the person's approval/);
    const params = toAlice.params as { threadId: string; itemId: string; availableDecisions: unknown[] };
    expect(params.threadId).toBe(thread.id);
    expect(params.availableDecisions).toContain('acceptForSession');
    expect(fs.existsSync(path.join(project, 'agent.txt'))).toBe(false);
    alice.sendRaw(JSON.stringify({ id: toAlice.id, result: { decision: 'accept' } }));
    const done = await jobUpdate(alice, (j) => j.id === params.itemId && j.status === 'completed', 'the agent job completed');
    expect(done.threadId).toBe(thread.id);
    expect(fs.existsSync(path.join(project, 'agent.txt'))).toBe(true);
  });

  it('job/delete tells every client: the second one sees job/deleted', async () => {
    const { server, project } = await serveHome();
    const alice = await client(server, 'alice');
    const bob = await client(server, 'bob');
    const { job } = await alice.call('job/create', { kind: 'command', command: 'echo short', cwd: project });
    await jobUpdate(bob, (j) => j.id === job.id && j.status === 'completed', 'bob sees it completed');
    await alice.call('job/delete', { jobId: job.id });
    const deleted = await bob.inbox.notification('job/deleted');
    expect(deleted.params).toEqual({ jobId: job.id });
    expect((await bob.call('job/list', {})).data).toEqual([]);
    const again = await bob.request('job/read', { jobId: job.id });
    expect('error' in again && again.error.message).toMatch(/job not found/);
  });
});
