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
