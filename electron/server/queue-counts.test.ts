import { describe, expect, it } from 'vitest';
import { textInput, type Turn } from '../../shared/protocol/index.js';
import type { AppServerProcess } from '../../test-support/app-server-process.js';
import { createGate, type MockScript } from '../../test-support/mock-model/index.js';
import { useStdioAgentHomes } from '../../test-support/stdio-agent-home.js';

/**
 * thread/queue/counts (ours): the sidebar's queued counts for every thread in
 * one request, against `wheelhouse app-server` on a real home.
 */
const stdio = useStdioAgentHomes();

const reply = (t: string): MockScript => [{ type: 'text', text: t }, { type: 'finish' }];

async function queue(server: AppServerProcess, threadId: string, input: ReturnType<typeof textInput>[]): Promise<string> {
  const added = await server.peer.call('thread/queue/add', { threadId, turnStartParams: { threadId, input } });
  return added.queuedTurn!.id;
}

async function completedTurn(server: AppServerProcess): Promise<Turn> {
  return ((await server.peer.inbox.notification('turn/completed')).params as { turn: Turn }).turn;
}

describe('thread/queue/counts over stdio', () => {
  it('counts pending and failed rows per thread, leaves out started, deleted, empty and ephemeral ones, and refuses bad params', async () => {
    const gate = createGate();
    stdio.mock.enqueue(
      [{ type: 'waitFor', release: gate.promise }, ...reply('busy done')],
      reply('started at once'),
      reply('first waiting ran'),
      reply('second waiting ran'),
    );
    const before = stdio.mock.requests.length;
    const { home } = stdio.makeHome('wheelhouse-queue-counts-');
    const server = await stdio.client(home);
    const { peer } = server;
    const counts = async () => (await peer.call('thread/queue/counts', {})).counts;
    const newThread = async () => (await peer.call('thread/start', { cwd: home })).thread.id;
    expect(await counts()).toEqual({});

    // A busy thread: three rows wait behind its turn, one is deleted.
    const busy = await newThread();
    await peer.call('turn/start', { threadId: busy, input: [textInput('keep busy')] });
    await stdio.mock.waitForRequests(before + 1);
    await queue(server, busy, [textInput('one')]);
    const deleted = await queue(server, busy, [textInput('two')]);
    await queue(server, busy, [textInput('three')]);
    expect(await peer.call('thread/queue/delete', { threadId: busy, queuedTurnId: deleted })).toEqual({ deleted: true });

    // A blocked thread: an empty row fails when it starts and holds back the one behind it.
    const blocked = await newThread();
    await queue(server, blocked, []);
    await queue(server, blocked, [textInput('behind the failed one')]);
    expect((await peer.call('thread/queue/list', { threadId: blocked })).data.map((row) => row.status.type)).toEqual(['failed', 'pending']);

    // An idle thread's row starts at once and leaves the queue.
    const idle = await newThread();
    await queue(server, idle, [textInput('start now')]);
    expect((await completedTurn(server)).status).toBe('completed');

    await newThread(); // nothing queued
    await peer.call('thread/start', { cwd: home, ephemeral: true });
    expect(await counts()).toEqual({ [busy]: 2, [blocked]: 2 });

    for (const params of [{ threadId: busy }, 'all', [busy]]) {
      const refused = await peer.request('thread/queue/counts', params);
      expect(refused).toMatchObject({ error: { code: -32602, message: expect.stringContaining('invalid params for thread/queue/counts') } });
    }

    // Once the busy thread is free its rows start one by one, and it drops out of the counts.
    gate.release();
    for (let i = 0; i < 3; i += 1) expect((await completedTurn(server)).status).toBe('completed');
    expect(await counts()).toEqual({ [blocked]: 2 });
    expect(stdio.mock.pendingScripts).toBe(0);
  });
});
