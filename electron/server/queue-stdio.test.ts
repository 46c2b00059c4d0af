import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { textInput, type NotificationParamsOf, type QueuedTurn, type Turn } from '../../shared/protocol/index.js';
import type { AppServerProcess } from '../../test-support/app-server-process.js';
import { createGate, type MockScript } from '../../test-support/mock-model/index.js';
import { useStdioAgentHomes } from '../../test-support/stdio-agent-home.js';
import { StateStore } from '../store/state-store.js';

/**
 * Seed 003's app-server tests (thread_queue.rs), against `wheelhouse app-server`
 * as a real process whose model is the local mock provider.
 */
const stdio = useStdioAgentHomes();

const INVALID_REQUEST = -32600;
const text = (t: string) => [textInput(t)];
const reply = (t: string): MockScript => [{ type: 'text', text: t }, { type: 'finish' }];

async function startServer(home = stdio.makeHome('wheelhouse-queue-').home) {
  const server = stdio.start(home);
  await server.peer.initialize();
  return { home, server, peer: server.peer };
}

async function startThread(server: AppServerProcess, home: string) {
  return (await server.peer.call('thread/start', { cwd: home })).thread;
}

function queueTurn(server: AppServerProcess, threadId: string, t: string) {
  return server.peer.call('thread/queue/add', { threadId, turnStartParams: { threadId, input: text(t) } });
}

async function queueTurnId(server: AppServerProcess, threadId: string, t: string): Promise<string> {
  const result = await queueTurn(server, threadId, t);
  if (!result.queuedTurn) throw new Error('seed-shaped add must answer with queuedTurn');
  expect(result.queuedSubmission).toEqual(result.queuedTurn);
  return result.queuedTurn.id;
}

async function listIds(server: AppServerProcess, threadId: string): Promise<string[]> {
  return (await server.peer.call('thread/queue/list', { threadId })).data.map((q) => q.id);
}

async function nextQueueChange(server: AppServerProcess) {
  const n = await server.peer.inbox.notification('thread/queue/changed');
  return n.params as NotificationParamsOf<'thread/queue/changed'>;
}

async function completedTurn(server: AppServerProcess): Promise<Turn> {
  return ((await server.peer.inbox.notification('turn/completed')).params as { turn: Turn }).turn;
}

/** The user text the model saw last in request `index` (counted from `before`). */
function lastUserText(index: number): string {
  const body = stdio.mock.requests[index]!.body as { messages: Array<{ role: string; content: unknown }> };
  const users = body.messages.filter((m) => m.role === 'user');
  return JSON.stringify(users[users.length - 1]!.content);
}

describe('thread/queue over stdio (seed 003)', () => {
  it('an idle add dispatches the serialized turn and drains the visible queue', async () => {
    stdio.mock.enqueue(reply('queued done'), reply('second queued done'));
    const before = stdio.mock.requests.length;
    const { server, home } = await startServer();
    const thread = await startThread(server, home);
    const added = await queueTurn(server, thread.id, 'queued serialized input');
    expect(added.queuedTurn?.status).toEqual({ type: 'pending' });
    const queued = (added as { queuedTurn: QueuedTurn }).queuedTurn;
    expect(queued.turnStartParams).toEqual({ threadId: thread.id, input: text('queued serialized input') });

    expect(await nextQueueChange(server)).toEqual({ threadId: thread.id, queuedTurns: [queued] });
    expect(await nextQueueChange(server)).toEqual({ threadId: thread.id, queuedTurns: [] });
    expect((await completedTurn(server)).status).toBe('completed');
    expect(await server.peer.call('thread/queue/list', { threadId: thread.id })).toEqual({ data: [], nextCursor: null });

    await queueTurn(server, thread.id, 'second queued serialized input');
    await completedTurn(server);
    expect(await listIds(server, thread.id)).toEqual([]);
    expect(stdio.mock.requests.length - before).toBe(2);
    expect(lastUserText(before)).toContain('queued serialized input');
    expect(lastUserText(before + 1)).toContain('second queued serialized input');
  });

  it('rejects ephemeral threads, mismatched thread ids and bad cursors with -32600', async () => {
    const { server, peer, home } = await startServer();
    const { thread } = await peer.call('thread/start', { ephemeral: true });
    const ephemeral = await peer.request('thread/queue/add', { threadId: thread.id, turnStartParams: { threadId: thread.id, input: text('x') } });
    expect(ephemeral).toMatchObject({
      error: { code: INVALID_REQUEST, message: `ephemeral thread does not support queued turns: ${thread.id}` },
    });
    const durable = await startThread(server, home);
    const mismatch = await peer.request('thread/queue/add', { threadId: durable.id, turnStartParams: { threadId: thread.id, input: text('x') } });
    expect(mismatch).toMatchObject({ error: { code: INVALID_REQUEST, message: '`threadId` must match `turnStartParams.threadId`' } });
    const cursor = await peer.request('thread/queue/list', { threadId: durable.id, cursor: 'abc' });
    expect(cursor).toMatchObject({ error: { code: INVALID_REQUEST, message: 'invalid cursor: abc' } });
    const tooLong = await peer.request('thread/queue/add', {
      threadId: durable.id,
      turnStartParams: { threadId: durable.id, input: text('x'.repeat(256 * 1024 + 1)) },
    });
    expect(tooLong).toMatchObject({ error: { code: -32602 } });
    expect(await listIds(server, durable.id)).toEqual([]);
  });

  it('a busy thread queue supports list, paging, reorder and delete before it drains', async () => {
    const gate = createGate();
    stdio.mock.enqueue([{ type: 'waitFor', release: gate.promise }, ...reply('active turn done')]);
    const { server, peer, home } = await startServer();
    const thread = await startThread(server, home);
    await peer.call('turn/start', { threadId: thread.id, input: text('keep the thread running') });
    const first = await queueTurnId(server, thread.id, 'first queued');
    const second = await queueTurnId(server, thread.id, 'second queued');
    expect(await listIds(server, thread.id)).toEqual([first, second]);

    const page1 = await peer.call('thread/queue/list', { threadId: thread.id, limit: 1 });
    expect(page1.data.map((q) => q.id)).toEqual([first]);
    expect(page1.nextCursor).toBe('1');
    const page2 = await peer.call('thread/queue/list', { threadId: thread.id, cursor: page1.nextCursor, limit: 1 });
    expect(page2.data.map((q) => q.id)).toEqual([second]);
    expect(page2.nextCursor).toBeNull();

    const incomplete = await peer.request('thread/queue/reorder', { threadId: thread.id, queuedTurnIds: [second] });
    expect(incomplete).toMatchObject({ error: { code: INVALID_REQUEST } });
    expect(await listIds(server, thread.id)).toEqual([first, second]);
    const reordered = await peer.call('thread/queue/reorder', { threadId: thread.id, queuedTurnIds: [second, first] });
    expect(reordered.queuedTurns.map((q) => q.id)).toEqual([second, first]);

    expect(await peer.call('thread/queue/delete', { threadId: thread.id, queuedTurnId: 'unknown' })).toEqual({ deleted: false });
    expect(await peer.call('thread/queue/delete', { threadId: thread.id, queuedTurnId: second })).toEqual({ deleted: true });
    expect(await peer.call('thread/queue/delete', { threadId: thread.id, queuedTurnId: first })).toEqual({ deleted: true });
    expect(await listIds(server, thread.id)).toEqual([]);
    gate.release();
    await completedTurn(server);
    expect(stdio.mock.pendingScripts).toBe(0);
  });

  it('queued turns stay serial after the first dispatch starts', async () => {
    const gate = createGate();
    stdio.mock.enqueue([{ type: 'waitFor', release: gate.promise }, ...reply('first queued turn done')], reply('second queued turn done'));
    const before = stdio.mock.requests.length;
    const { server, home } = await startServer();
    const thread = await startThread(server, home);
    await queueTurn(server, thread.id, 'first queued');
    await stdio.mock.waitForRequests(before + 1);
    const second = await queueTurnId(server, thread.id, 'second queued');
    expect(await listIds(server, thread.id)).toEqual([second]);
    gate.release();
    await completedTurn(server);
    await completedTurn(server);
    expect(await listIds(server, thread.id)).toEqual([]);
    expect(stdio.mock.requests.length - before).toBe(2);
    expect(lastUserText(before + 1)).toContain('second queued');
  });

  it('a queued turn waits for a just-accepted direct turn, then runs after it', async () => {
    const gate = createGate();
    stdio.mock.enqueue([{ type: 'waitFor', release: gate.promise }, ...reply('direct turn done')], reply('queued follow-up done'));
    const before = stdio.mock.requests.length;
    const { server, peer, home } = await startServer();
    const thread = await startThread(server, home);
    await peer.call('turn/start', { threadId: thread.id, input: text('direct turn first') });
    const queued = await queueTurnId(server, thread.id, 'queued turn after direct');
    expect(await listIds(server, thread.id)).toEqual([queued]);
    gate.release();
    await completedTurn(server);
    await completedTurn(server);
    expect(await listIds(server, thread.id)).toEqual([]);
    expect(stdio.mock.requests.length - before).toBe(2);
    expect(lastUserText(before)).toContain('direct turn first');
    expect(lastUserText(before + 1)).toContain('queued turn after direct');
  });

  it('queued turns drain after a direct turn has already completed, and after an interrupted one', async () => {
    const gate = createGate();
    stdio.mock.enqueue(reply('direct turn done'), reply('queued follow-up done'), [{ type: 'waitFor', release: gate.promise }], reply('after stop'));
    const before = stdio.mock.requests.length;
    const { server, peer, home } = await startServer();
    const thread = await startThread(server, home);
    await peer.call('turn/start', { threadId: thread.id, input: text('direct turn first') });
    await completedTurn(server);
    await queueTurn(server, thread.id, 'queued turn after completion');
    await completedTurn(server);
    expect(lastUserText(before + 1)).toContain('queued turn after completion');

    const { turn } = await peer.call('turn/start', { threadId: thread.id, input: text('stop me') });
    await queueTurn(server, thread.id, 'queued turn after stop');
    await stdio.mock.waitForRequests(before + 3);
    await peer.call('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    expect((await completedTurn(server)).status).toBe('interrupted');
    expect((await completedTurn(server)).status).toBe('completed');
    expect(lastUserText(before + 3)).toContain('queued turn after stop');
    gate.release();
  });

  it('a row whose turn cannot start is failed with the reason and blocks later rows until deleted', async () => {
    stdio.mock.enqueue(reply('second ran'));
    const before = stdio.mock.requests.length;
    const { server, peer, home } = await startServer();
    const thread = await startThread(server, home);
    const missing = path.join(home, 'no-such-folder');
    const added = await peer.call('thread/queue/add', {
      threadId: thread.id,
      turnStartParams: { threadId: thread.id, input: text('bad folder'), cwd: missing },
    });
    const failedId = (added as { queuedTurn: QueuedTurn }).queuedTurn.id;
    const [failed] = (await peer.call('thread/queue/list', { threadId: thread.id })).data;
    expect(failed).toMatchObject({ id: failedId, status: { type: 'failed' } });
    expect(failed!.status.type === 'failed' && failed!.status.error.message).toMatch(/^queued turn could not start: .*no-such-folder/);

    const second = await queueTurnId(server, thread.id, 'second after failure');
    expect(await listIds(server, thread.id)).toEqual([failedId, second]);
    expect(stdio.mock.requests.length).toBe(before);
    expect(await peer.call('thread/queue/delete', { threadId: thread.id, queuedTurnId: failedId })).toEqual({ deleted: true });
    await completedTurn(server);
    expect(await listIds(server, thread.id)).toEqual([]);
    expect(lastUserText(before)).toContain('second after failure');
  });

  it('an empty queued turn is accepted, fails at dispatch, stays listed and blocks; an unknown thread lists nothing', async () => {
    stdio.mock.enqueue(reply('after the empty one'));
    const before = stdio.mock.requests.length;
    const { server, peer, home } = await startServer();
    const thread = await startThread(server, home);
    const added = await peer.call('thread/queue/add', { threadId: thread.id, turnStartParams: { threadId: thread.id, input: [] } });
    const emptyId = added.queuedTurn!.id;
    const [failed] = (await peer.call('thread/queue/list', { threadId: thread.id })).data;
    expect(failed).toMatchObject({ id: emptyId, status: { type: 'failed' }, turnStartParams: { input: [] } });
    expect(failed!.status.type === 'failed' && failed!.status.error.message).toMatch(/^queued turn could not start: .*turn input must not be empty/);
    const behind = await queueTurnId(server, thread.id, 'behind the empty one');
    expect(await listIds(server, thread.id)).toEqual([emptyId, behind]);
    expect(stdio.mock.requests.length).toBe(before);
    await peer.call('thread/queue/delete', { threadId: thread.id, queuedTurnId: emptyId });
    await completedTurn(server);
    expect(lastUserText(before)).toContain('behind the empty one');

    // Seed 003: a well-formed id of a thread that does not exist has an empty queue, not an error.
    expect(await peer.call('thread/queue/list', { threadId: '019a0000-0000-7000-8000-000000000000' })).toEqual({ data: [], nextCursor: null });
  });

  it('keeps a queued turn\'s params as the client sent them: text_elements and fields Wheelhouse does not use', async () => {
    const { server, peer, home } = await startServer();
    const thread = await startThread(server, home);
    // Held behind a failed row, so it stays listed.
    await peer.call('thread/queue/add', { threadId: thread.id, turnStartParams: { threadId: thread.id, input: [] } });
    const input = [{ type: 'text', text: 'look at @README.md', text_elements: [{ byteRange: { start: 8, end: 18 }, placeholder: '@README.md' }] }];
    const turnStartParams = { threadId: thread.id, input, effort: 'high', summary: null, outputSchema: { type: 'object' }, collaborationMode: null };
    const added = await peer.call('thread/queue/add', { threadId: thread.id, turnStartParams } as never);
    expect(added.queuedTurn!.turnStartParams).toEqual(turnStartParams);
    expect(added.queuedTurn!.input).toEqual(input);
    const listed = (await peer.call('thread/queue/list', { threadId: thread.id })).data[1];
    expect(listed!.turnStartParams).toEqual(turnStartParams);
    // A span outside the text is refused, naming where.
    const outside = await peer.request('thread/queue/add', {
      threadId: thread.id,
      turnStartParams: { threadId: thread.id, input: [{ type: 'text', text: 'hi', text_elements: [{ byteRange: { start: 0, end: 9 } }] }] },
    });
    expect(outside).toMatchObject({ error: { code: -32602, message: expect.stringContaining('text_elements.0.byteRange') } });
  });

  it('after a restart, a row left dispatching comes back failed, is announced, and blocks FIFO', async () => {
    stdio.mock.enqueue(reply('pending one ran'));
    const before = stdio.mock.requests.length;
    const { server, home } = await startServer();
    const thread = await startThread(server, home);
    server.endInput();
    await server.exited;
    // What a crash between claim and turn start leaves in the file.
    const store = StateStore.open(path.join(home, 'state.sqlite'));
    const row = (id: string, t: string) =>
      store.queue.append({ id, threadId: thread.id, turnStartParams: { threadId: thread.id, input: text(t) }, clientUserMessageId: null, clientMetadata: null, nowMs: 1 });
    row('crashed', 'was dispatching');
    row('waiting', 'still pending');
    store.queue.claimHead(thread.id, 2);
    store.close();

    const { server: again, peer } = await startServer(home);
    const replay = await peer.call('events/replay', { afterSeq: 0, threadId: thread.id });
    const announced = replay.events.filter((e) => e.event === 'thread/queue/changed').at(-1);
    expect((announced?.payload as { queuedTurns: QueuedTurn[] }).queuedTurns.map((q) => q.id)).toEqual(['crashed', 'waiting']);
    await peer.call('thread/resume', { threadId: thread.id });
    const resumed = await nextQueueChange(again);
    expect(resumed.queuedTurns[0]).toMatchObject({
      id: 'crashed',
      status: { type: 'failed', error: { message: 'queued turn dispatch was interrupted while app-server restarted' } },
    });
    expect(resumed.queuedTurns[1]).toMatchObject({ id: 'waiting', status: { type: 'pending' } });
    expect(stdio.mock.requests.length).toBe(before);
    await peer.call('thread/queue/delete', { threadId: thread.id, queuedTurnId: 'crashed' });
    await completedTurn(again);
    expect(lastUserText(before)).toContain('still pending');
  });

  it('speaks Codex 0.169 queued submissions: add, update, list, reorder and start', async () => {
    const gate = createGate();
    stdio.mock.enqueue([{ type: 'waitFor', release: gate.promise }, ...reply('busy')], reply('started now'), reply('then the rest'));
    const before = stdio.mock.requests.length;
    const { server, peer, home } = await startServer();
    const thread = await startThread(server, home);
    const { turn } = await peer.call('turn/start', { threadId: thread.id, input: text('busy') });
    const raw = await peer.request('thread/queue/add', { threadId: thread.id, input: text('draft'), clientUserMessageId: 'msg-1' });
    const submission = (raw as { result: { queuedSubmission: QueuedTurn } }).result.queuedSubmission;
    expect(submission).toMatchObject({ clientUserMessageId: 'msg-1', input: text('draft'), responsesapiClientMetadata: null });
    const other = await peer.call('thread/queue/add', { threadId: thread.id, input: text('other'), clientUserMessageId: 'msg-2' });
    const otherId = (other as { queuedSubmission: QueuedTurn }).queuedSubmission.id;

    const updated = await peer.call('thread/queue/update', { threadId: thread.id, queuedSubmissionId: submission.id, input: text('edited') });
    expect(updated.queuedSubmission).toMatchObject({ id: submission.id, input: text('edited'), clientUserMessageId: 'msg-1' });
    const reordered = await peer.call('thread/queue/reorder', { threadId: thread.id, queuedSubmissionIds: [otherId, submission.id] });
    expect(reordered.queuedTurns.map((q) => q.id)).toEqual([otherId, submission.id]);
    const busy = await peer.request('thread/queue/start', { threadId: thread.id, queuedSubmissionId: submission.id });
    expect(busy).toMatchObject({ error: { code: INVALID_REQUEST } });

    // The busy turn's request is with the model (the model client loads on first use, so this is not instant).
    await stdio.mock.waitForRequests(before + 1);
    await peer.call('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    gate.release();
    // The interrupted turn drains the head (otherId); the edited row waits and then runs.
    await completedTurn(server);
    await completedTurn(server);
    await completedTurn(server);
    expect(lastUserText(before + 1)).toContain('other');
    expect(lastUserText(before + 2)).toContain('edited');
    expect(await peer.call('thread/queue/delete', { threadId: thread.id, queuedSubmissionId: submission.id })).toEqual({ deleted: false });
  });

  it('thread/queue/start runs a chosen row now, past a failed head, and refuses unknown ids', async () => {
    stdio.mock.enqueue(reply('chosen ran'));
    const before = stdio.mock.requests.length;
    const { server, peer, home } = await startServer();
    const thread = await startThread(server, home);
    await peer.call('thread/queue/add', {
      threadId: thread.id,
      turnStartParams: { threadId: thread.id, input: text('bad folder'), cwd: path.join(home, 'gone') },
    });
    const chosen = await queueTurnId(server, thread.id, 'chosen one');
    const unknown = await peer.request('thread/queue/start', { threadId: thread.id, queuedSubmissionId: 'nope' });
    expect(unknown).toMatchObject({ error: { code: INVALID_REQUEST, message: 'queued turn not found: nope' } });
    const { turn } = await peer.call('thread/queue/start', { threadId: thread.id, queuedSubmissionId: chosen });
    expect((await completedTurn(server)).id).toBe(turn.id);
    expect(lastUserText(before)).toContain('chosen one');
    const left = (await peer.call('thread/queue/list', { threadId: thread.id })).data;
    expect(left.map((q) => q.status.type)).toEqual(['failed']);
  });
});
