import { describe, expect, it } from 'vitest';
import type { QueuedTurn } from '../../../shared/protocol/methods/queue.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { createQueueStore } from './queue-store.js';

const row = (id: string): QueuedTurn =>
  ({
    id,
    turnStartParams: { threadId: 't', input: [{ type: 'text', text: id }] },
    status: 'pending',
    clientUserMessageId: id,
    input: [{ type: 'text', text: id }],
    responsesapiClientMetadata: null,
  }) as unknown as QueuedTurn;

/** A runtime whose reorder answers and queue notifications the test delivers by hand, in any order. */
function fakeClient() {
  const reorders: { ids: string[]; answer: () => void }[] = [];
  let changed: ((params: { threadId: string; queuedTurns: QueuedTurn[] }) => void) | null = null;
  const client = {
    request: (method: string, params: { queuedTurnIds: string[] }) => {
      if (method !== 'thread/queue/reorder') return Promise.reject(new Error(`unexpected ${method}`));
      return new Promise((resolve) => {
        reorders.push({ ids: params.queuedTurnIds, answer: () => resolve({ queuedTurns: params.queuedTurnIds.map(row) }) });
      });
    },
    on: (method: string, listener: typeof changed) => {
      if (method === 'thread/queue/changed') changed = listener;
      return () => {};
    },
    onReady: () => () => {},
  } as unknown as WheelhouseClient;
  const notify = (ids: string[]) => changed?.({ threadId: 't', queuedTurns: ids.map(row) });
  return { client, reorders, notify };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('queue store', () => {
  it('keeps the newest of two quick moves on screen while the older move’s answer and notification arrive late', async () => {
    const { client, reorders, notify } = fakeClient();
    const store = createQueueStore(client);
    store.setState({ queues: { t: [row('second'), row('first')] } });
    const ids = () => store.getState().queues['t']!.map((r) => r.id);

    void store.getState().move('t', 'first', 0); // ↑
    void store.getState().move('t', 'first', 1); // ↓ again
    expect(ids()).toEqual(['second', 'first']);

    // The first move's answer and its notification come after the second move was shown.
    reorders[0]!.answer();
    await flush();
    notify(['first', 'second']);
    expect(ids()).toEqual(['second', 'first']);

    reorders[1]!.answer();
    await flush();
    notify(['second', 'first']);
    expect(ids()).toEqual(['second', 'first']);

    // Real news still applies: a row started and left the queue.
    notify(['first']);
    expect(ids()).toEqual(['first']);
  });
});

/** A runtime whose every answer, notification and (re)connect the test delivers by hand. */
function manualClient() {
  const sent: { method: string; params: unknown; answer: (result: unknown) => void }[] = [];
  let changed: ((params: { threadId: string; queuedTurns: QueuedTurn[] }) => void) | null = null;
  let ready: (() => void) | null = null;
  const client = {
    request: (method: string, params: unknown) => new Promise((answer) => sent.push({ method, params, answer })),
    on: (method: string, listener: typeof changed) => {
      if (method === 'thread/queue/changed') changed = listener;
      return () => {};
    },
    onReady: (listener: () => void) => {
      ready = listener;
      return () => {};
    },
  } as unknown as WheelhouseClient;
  return {
    client,
    sent,
    connect: () => ready?.(),
    notify: (threadId: string, ids: string[]) => changed?.({ threadId, queuedTurns: ids.map(row) }),
    /** Answers the oldest unanswered request, which must be `method`. */
    answer: async (method: string, result: unknown) => {
      const next = sent.shift();
      expect(next?.method).toBe(method);
      next!.answer(result);
      await flush();
    },
  };
}

describe('queue store counts (the sidebar)', () => {
  it('fetches every thread’s count with one request per connect, and lists no queue for them', async () => {
    const runtime = manualClient();
    const store = createQueueStore(runtime.client);
    runtime.connect();
    expect(runtime.sent.map((r) => r.method)).toEqual(['thread/queue/counts']);
    await runtime.answer('thread/queue/counts', { counts: { a: 2, b: 1 } });
    expect(store.getState().counts).toEqual({ a: 2, b: 1 });
    expect(store.getState().queues).toEqual({});

    // A reconnect fetches them again: rows may have started while the link was down.
    runtime.connect();
    await runtime.answer('thread/queue/counts', { counts: { b: 3 } });
    expect(store.getState().counts).toEqual({ b: 3 });
    expect(runtime.sent).toEqual([]);
  });

  it('follows thread/queue/changed for every thread, keeping rows only for queues it listed', async () => {
    const runtime = manualClient();
    const store = createQueueStore(runtime.client);
    runtime.notify('a', ['x', 'y']);
    expect(store.getState().counts).toEqual({ a: 2 });
    expect(store.getState().queues).toEqual({});

    void store.getState().load('b');
    await runtime.answer('thread/queue/list', { data: [row('p')], nextCursor: null });
    expect(store.getState().counts).toEqual({ a: 2, b: 1 });
    runtime.notify('b', ['p', 'q']);
    expect(store.getState().queues['b']!.map((r) => r.id)).toEqual(['p', 'q']);

    runtime.notify('a', []);
    expect(store.getState().counts).toEqual({ b: 2 });
  });

  it('keeps a notification newer than the counts answer that was already on its way', async () => {
    const runtime = manualClient();
    const store = createQueueStore(runtime.client);
    runtime.connect();
    runtime.notify('a', []); // a's row started after the runtime counted it
    runtime.notify('c', ['z']);
    await runtime.answer('thread/queue/counts', { counts: { a: 1, b: 4 } });
    expect(store.getState().counts).toEqual({ b: 4, c: 1 });
  });

  it('shows this window’s add and delete at once, and does not count an add twice when its notification came first', async () => {
    const runtime = manualClient();
    const store = createQueueStore(runtime.client);

    // Thread a is open (its queue listed): rows and count follow the answers.
    void store.getState().load('a');
    await runtime.answer('thread/queue/list', { data: [row('x')], nextCursor: null });
    void store.getState().add('a', 'y');
    await runtime.answer('thread/queue/add', { queuedSubmission: row('y') });
    expect(store.getState().queues['a']!.map((r) => r.id)).toEqual(['x', 'y']);
    expect(store.getState().counts).toEqual({ a: 2 });
    void store.getState().remove('a', 'x');
    await runtime.answer('thread/queue/delete', { deleted: true });
    expect(store.getState().counts).toEqual({ a: 1 });
    expect(store.getState().queues['a']!.map((r) => r.id)).toEqual(['y']);

    // Thread b is not open: only its count moves.
    void store.getState().add('b', 'first');
    await runtime.answer('thread/queue/add', { queuedSubmission: row('b1') });
    expect(store.getState().counts).toEqual({ a: 1, b: 1 });

    // The notification beat the answer: the answer adds nothing more.
    void store.getState().add('b', 'second');
    runtime.notify('b', ['b1', 'b2']);
    await runtime.answer('thread/queue/add', { queuedSubmission: row('b2') });
    expect(store.getState().counts).toEqual({ a: 1, b: 2 });
    expect(store.getState().queues['b']).toBeUndefined();
  });
});
