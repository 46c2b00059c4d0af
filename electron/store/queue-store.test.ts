import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textInput } from '../../shared/protocol/index.js';
import { threadRecord } from '../../test-support/records.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { QueueReorderMismatchError } from './queue-store.js';
import { StateStore } from './state-store.js';

/** Seed 003's state-store tests (codex-rs/state queued_turns.rs), on a real SQLite file. */
const temp = new TempDirs();
const open: StateStore[] = [];
afterEach(() => {
  for (const store of open.splice(0)) store.close();
  temp.cleanup();
});

let counter = 0;
function storeWithThread(file = path.join(temp.make(), 'state.sqlite')) {
  const store = StateStore.open(file);
  open.push(store);
  if (!store.threads.get('t')) store.threads.upsert(threadRecord('t'));
  const append = (text = 'queued') =>
    store.queue.append({
      id: `q-${++counter}`,
      threadId: 't',
      turnStartParams: { threadId: 't', input: [textInput(text)] },
      clientUserMessageId: null,
      clientMetadata: null,
      nowMs: Date.now(),
    });
  return { store, file, append };
}

const failure = (message: string) => ({ message, kind: 'other' as const, httpStatus: null, additionalDetails: null });

describe('queued turns in the state store', () => {
  it('a claim has a single winner, even from two connections, and hides the dispatching row', () => {
    const { store, file, append } = storeWithThread();
    const other = StateStore.open(file);
    open.push(other);
    append();
    const claims = [store.queue.claimHead('t', 1), other.queue.claimHead('t', 1)];
    expect(claims.filter((c) => c !== null)).toHaveLength(1);
    expect(store.queue.listVisible('t')).toEqual([]);
    expect(other.queue.listVisible('t')).toEqual([]);
  });

  it('counts each thread\'s visible rows in one read: a row being dispatched is not counted until it comes back failed', () => {
    const { store, append } = storeWithThread();
    expect(store.queue.visibleCounts()).toEqual({});
    store.threads.upsert(threadRecord('u'));
    store.queue.append({ id: 'u-1', threadId: 'u', turnStartParams: { threadId: 'u', input: [textInput('x')] }, clientUserMessageId: null, clientMetadata: null, nowMs: 1 });
    append('first');
    append('second');
    const claimed = store.queue.claimHead('t', 2)!;
    expect(store.queue.visibleCounts()).toEqual({ t: 1, u: 1 });
    store.queue.markFailed(claimed.id, failure('could not start'), 3);
    expect(store.queue.visibleCounts()).toEqual({ t: 2, u: 1 });
    store.queue.delete('u', 'u-1');
    expect(store.queue.visibleCounts()).toEqual({ t: 2 });
  });

  it('a row added during a dispatch claim waits for the existing claim', () => {
    const { store, append } = storeWithThread();
    append('first');
    expect(store.queue.claimHead('t', 1)).not.toBeNull();
    const second = append('second');
    expect(store.queue.claimHead('t', 2)).toBeNull();
    expect(store.queue.listVisible('t')).toEqual([second]);
  });

  it('a dispatch claim rejects stale mutations and keeps later rows reorderable', () => {
    const { store, append } = storeWithThread();
    const first = append('first');
    const second = append('second');
    const third = append('third');
    store.queue.claimHead('t', 1);
    expect(store.queue.delete('t', first.id)).toBe(false);
    expect(() => store.queue.reorder('t', [first.id, third.id, second.id], 2)).toThrow(QueueReorderMismatchError);
    const reordered = store.queue.reorder('t', [third.id, second.id], 3);
    expect(reordered.map((r) => r.id)).toEqual([third.id, second.id]);
  });

  it('a rejected reorder changes nothing', () => {
    const { store, append } = storeWithThread();
    const first = append('first');
    const second = append('second');
    expect(() => store.queue.reorder('t', [second.id], 1)).toThrow(QueueReorderMismatchError);
    expect(() => store.queue.reorder('t', [second.id, second.id], 1)).toThrow(QueueReorderMismatchError);
    expect(() => store.queue.reorder('t', [second.id, first.id, 'nope'], 1)).toThrow(QueueReorderMismatchError);
    expect(store.queue.listVisible('t').map((r) => r.id)).toEqual([first.id, second.id]);
  });

  it('an abandoned dispatch claim recovers as failed, survives reopening and blocks FIFO', () => {
    const { store, file, append } = storeWithThread();
    const first = append('first');
    append('second');
    store.queue.claimHead('t', 1);
    store.close();
    const reopened = StateStore.open(file);
    open.push(reopened);
    expect(reopened.queue.recoverDispatching(failure('dispatch interrupted'), 2)).toEqual(['t']);
    const visible = reopened.queue.listVisible('t');
    expect(visible[0]).toMatchObject({ id: first.id, state: 'failed', failure: { message: 'dispatch interrupted' } });
    expect(reopened.queue.claimHead('t', 3)).toBeNull();
  });

  it('a failed head blocks later pending work until it is removed', () => {
    const { store, append } = storeWithThread();
    const first = append('first');
    const second = append('second');
    const claimed = store.queue.claimHead('t', 1);
    expect(claimed?.id).toBe(first.id);
    expect(store.queue.markFailed(first.id, failure('nope'), 2)).toBe(true);
    expect(store.queue.claimHead('t', 3)).toBeNull();
    expect(store.queue.delete('t', first.id)).toBe(true);
    expect(store.queue.claimHead('t', 4)?.id).toBe(second.id);
  });

  it('a dispatch claim clears only for its own submitted turn', () => {
    const { store, append } = storeWithThread();
    const queued = append();
    store.queue.claimHead('t', 1);
    expect(store.queue.removeDispatching('t', 'regular-turn')).toBe(false);
    expect(store.queue.setDispatchTurnId(queued.id, 'queued-turn', 2)).toBe(true);
    expect(store.queue.removeDispatching('t', 'regular-turn')).toBe(false);
    expect(store.queue.removeDispatching('t', 'queued-turn')).toBe(true);
    expect(store.queue.get('t', queued.id)).toBeNull();
  });

  it('pages the visible queue by offset and keeps the turn parameters as given', () => {
    const { store, append } = storeWithThread();
    const rows = [append('a'), append('b'), append('c')];
    expect(store.queue.listVisible('t', 1, 1).map((r) => r.id)).toEqual([rows[1]!.id]);
    expect(store.queue.listVisible('t', 0, 10)[2]!.turnStartParams).toEqual({
      threadId: 't',
      input: [{ type: 'text', text: 'c', text_elements: [] }],
    });
  });
});
