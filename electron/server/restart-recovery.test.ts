import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Job, RequestMessage, Turn } from '../../shared/protocol/index.js';
import { mockModelConfig, textReply } from '../../test-support/agent-commands.js';
import { startAppServer, type AppServerProcess } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { startMockModelServer, type MockModelServer } from '../../test-support/mock-model/index.js';
import { TempDirs } from '../../test-support/temp-dir.js';

/**
 * What a restart after kill -9 picks up by itself, seen by a client of
 * `wheelhouse app-server` (stdio) that does nothing but connect: a waiting
 * approval is asked again, and queued turns run.
 */
let mock: MockModelServer | undefined;
const temp = new TempDirs();
afterEach(async () => {
  await killAllChildren();
  await mock?.close();
  mock = undefined;
  temp.cleanup();
});

const WAIT_MS = 20_000;
const text = (t: string) => [{ type: 'text' as const, text: t }];

/** A fresh mock per process: a request the killed process had sent must not take the next one's script. */
async function freshMock(home: string): Promise<MockModelServer> {
  await mock?.close();
  mock = await startMockModelServer();
  fs.writeFileSync(path.join(home, 'config.toml'), mockModelConfig(mock));
  return mock;
}

async function killed(app: AppServerProcess): Promise<void> {
  app.process.child.kill('SIGKILL');
  expect((await app.exited).signal, app.process.stderr()).toBe('SIGKILL');
}

async function approvalRequestFor(app: AppServerProcess, itemId: string): Promise<RequestMessage> {
  const received = await app.peer.inbox.take(
    (r) => r.kind === 'request' && r.message.method === 'item/commandExecution/requestApproval' && (r.message.params as { itemId: string }).itemId === itemId,
    `the approval request of ${itemId}`,
    WAIT_MS,
  );
  return received.message as RequestMessage;
}

describe('after kill -9 and a restart', () => {
  it('a command job that waited for approval is asked again over stdio, and an accept runs it', async () => {
    const home = temp.make('wheelhouse-restart-approval-');
    await freshMock(home);
    fs.mkdirSync(path.join(home, 'rules'));
    fs.writeFileSync(path.join(home, 'rules', 'ask.rules'), 'prefix_rule(pattern = ["touch"], decision = "prompt", justification = "ask first")\n');
    const marker = path.join(home, 'approved.txt');

    const first = startAppServer(home);
    await first.peer.initialize();
    const { job } = await first.peer.call('job/create', { kind: 'command', command: 'touch approved.txt', cwd: home });
    expect(job).toMatchObject({ status: 'queued', detail: 'waiting for approval' });
    await approvalRequestFor(first, job.id);
    await killed(first);
    expect(fs.existsSync(marker)).toBe(false);

    const second = startAppServer(home);
    // The client only connects: the question comes to it without asking.
    await second.peer.initialize();
    const request = await approvalRequestFor(second, job.id);
    expect(request.params).toMatchObject({ itemId: job.id, command: 'touch approved.txt', reason: expect.stringContaining('ask first') });
    second.peer.sendRaw(JSON.stringify({ id: request.id, result: { decision: 'accept' } }));
    await second.peer.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'job/updated' && (r.message.params as { job: Job }).job.id === job.id && (r.message.params as { job: Job }).job.status === 'completed',
      'the approved job completing',
      WAIT_MS,
    );
    expect(fs.existsSync(marker)).toBe(true);
    second.endInput();
    expect((await second.exited).code, second.process.stderr()).toBe(0);
  });

  it('queued turns drain to empty with no client action after a kill mid-turn', async () => {
    const home = temp.make('wheelhouse-restart-queue-');
    const project = temp.make('wheelhouse-project-');
    const model = await freshMock(home);
    // The first turn streams and never ends: the kill lands in the middle of it.
    model.enqueue([{ type: 'text', text: 'Working on it' }, { type: 'stall' }]);
    const first = startAppServer(home);
    await first.peer.initialize();
    const { thread } = await first.peer.call('thread/start', { cwd: project });
    const queue = (t: string) => first.peer.call('thread/queue/add', { threadId: thread.id, turnStartParams: { threadId: thread.id, input: text(t) } });
    await queue('first, cut off');
    await queue('second');
    await queue('third');
    await first.peer.inbox.notification('item/agentMessage/delta', WAIT_MS);
    expect((await first.peer.call('thread/queue/list', { threadId: thread.id })).data.map((q) => q.status.type)).toEqual(['pending', 'pending']);
    await killed(first);

    const next = await freshMock(home);
    next.enqueue(textReply('Second done.'), textReply('Third done.'));
    const second = startAppServer(home);
    await second.peer.initialize();
    // Nothing but watching: no thread/resume, no queue call.
    const completed: Turn[] = [];
    while (completed.length < 2) {
      const turn = ((await second.peer.inbox.notification('turn/completed', WAIT_MS)).params as { turn: Turn }).turn;
      if (turn.status === 'completed') completed.push(turn);
    }
    await second.peer.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'thread/queue/changed' && (r.message.params as { queuedTurns: unknown[] }).queuedTurns.length === 0,
      'the queue announced empty',
      WAIT_MS,
    );
    const read = await second.peer.call('thread/read', { threadId: thread.id, includeTurns: true });
    expect(read.thread.turns.map((turn) => turn.status)).toEqual(['interrupted', 'completed', 'completed']);
    expect(read.items.filter((item) => item.type === 'agentMessage').map((item) => (item.type === 'agentMessage' ? item.text : ''))).toEqual(
      expect.arrayContaining(['Second done.', 'Third done.']),
    );
    expect((await second.peer.call('thread/queue/list', { threadId: thread.id })).data).toEqual([]);
    second.endInput();
    expect((await second.exited).code, second.process.stderr()).toBe(0);
  });
});
