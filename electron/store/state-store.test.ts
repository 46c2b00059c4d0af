import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ITEM_CODEX_NULLS, type ConversationItem } from '../../shared/protocol/index.js';
import { threadRecord, userMessage } from '../../test-support/records.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { StateStore } from './state-store.js';

const temp = new TempDirs();
const open: StateStore[] = [];
afterEach(() => {
  for (const store of open.splice(0)) store.close();
  temp.cleanup();
});

function openStore(file = path.join(temp.make(), 'state.sqlite')): { store: StateStore; file: string } {
  const store = StateStore.open(file);
  open.push(store);
  return { store, file };
}

describe('threads', () => {
  it('round-trips every field of a thread through the file', () => {
    const { store, file } = openStore();
    const record = threadRecord('t-1', {
      preview: 'Fix the build',
      model: 'deepseek-chat',
      name: 'Build fix',
      gitBranch: 'main',
      gitSha: 'abc123',
      gitOriginUrl: 'https://example.invalid/repo.git',
      sandboxPolicy: 'workspace-write',
      approvalMode: 'on-request',
      archived: true,
      archivedAtMs: 1234,
    });
    store.threads.upsert(record);
    store.close();
    const reopened = StateStore.open(file);
    open.push(reopened);
    expect(reopened.threads.get('t-1')).toEqual(record);
    expect(reopened.threads.get('nope')).toBeUndefined();
  });

  it('upserts: writing the same id again updates the row, keeping created time', () => {
    const { store } = openStore();
    store.threads.upsert(threadRecord('t', { createdAtMs: 100, name: 'old' }));
    store.threads.upsert(threadRecord('t', { createdAtMs: 999, updatedAtMs: 200, name: 'new' }));
    expect(store.threads.get('t')).toMatchObject({ name: 'new', createdAtMs: 100, updatedAtMs: 200 });
    expect(store.threads.update('t', { name: 'patched' })).toMatchObject({ name: 'patched', updatedAtMs: 200 });
    expect(store.threads.update('missing', { name: 'x' })).toBeUndefined();
  });

  it('lists newest first and pages with a cursor without gaps or repeats', () => {
    const { store } = openStore();
    // Two threads share a timestamp so the id breaks the tie.
    const times = [10, 20, 30, 30, 40, 50, 60];
    times.forEach((t, i) => store.threads.upsert(threadRecord(`t${i}`, { createdAtMs: t })));
    const seen: string[] = [];
    let after: { at: number; id: string; inclusive: false } | undefined;
    for (;;) {
      const page = store.threads.list({ archived: 'all', limit: 3, ...(after ? { after } : {}) });
      seen.push(...page.map((r) => r.id));
      if (page.length < 3) break;
      const last = page[page.length - 1]!;
      after = { at: last.updatedAtMs, id: last.id, inclusive: false };
    }
    expect(seen).toEqual(['t6', 't5', 't4', 't3', 't2', 't1', 't0']);
  });

  it('lists by creation or update time, either way, from an inclusive or exclusive position', () => {
    const { store } = openStore();
    // Created in one order, updated in the reverse one; b and c share a creation time.
    store.threads.upsert(threadRecord('a', { createdAtMs: 10, updatedAtMs: 90 }));
    store.threads.upsert(threadRecord('b', { createdAtMs: 20, updatedAtMs: 80 }));
    store.threads.upsert(threadRecord('c', { createdAtMs: 20, updatedAtMs: 70 }));
    store.threads.upsert(threadRecord('d', { createdAtMs: 30, updatedAtMs: 60 }));
    const ids = (query: Omit<Parameters<typeof store.threads.list>[0], 'archived' | 'limit'>) =>
      store.threads.list({ archived: 'all', limit: 10, ...query }).map((r) => r.id);
    expect(ids({ sortBy: 'createdAtMs', direction: 'asc' })).toEqual(['a', 'b', 'c', 'd']);
    expect(ids({ sortBy: 'createdAtMs', direction: 'desc' })).toEqual(['d', 'c', 'b', 'a']);
    expect(ids({ sortBy: 'updatedAtMs', direction: 'asc' })).toEqual(['d', 'c', 'b', 'a']);
    expect(ids({ sortBy: 'createdAtMs', direction: 'asc', after: { at: 20, id: 'b', inclusive: false } })).toEqual(['c', 'd']);
    expect(ids({ sortBy: 'createdAtMs', direction: 'asc', after: { at: 20, id: 'b', inclusive: true } })).toEqual(['b', 'c', 'd']);
    expect(ids({ sortBy: 'createdAtMs', direction: 'desc', after: { at: 20, id: 'c', inclusive: false } })).toEqual(['b', 'a']);
  });

  it('filters archived threads', () => {
    const { store } = openStore();
    store.threads.upsert(threadRecord('live', { createdAtMs: 1 }));
    store.threads.upsert(threadRecord('old', { createdAtMs: 2, archived: true, archivedAtMs: 3 }));
    const ids = (archived: 'active' | 'archived' | 'all') =>
      store.threads.list({ archived, limit: 10 }).map((r) => r.id);
    expect(ids('active')).toEqual(['live']);
    expect(ids('archived')).toEqual(['old']);
    expect(ids('all')).toEqual(['old', 'live']);
  });

  it('deleting a thread removes its items and checkpoints', () => {
    const { store } = openStore();
    store.threads.upsert(threadRecord('t'));
    store.items.append('t', userMessage('i1', 'hello'));
    store.checkpoints.save({ threadId: 't', checkpointId: 'latest', reason: 'r', state: {}, createdAtMs: 1 });
    store.threads.delete('t');
    expect(store.items.list('t')).toEqual([]);
    expect(store.checkpoints.load('t')).toBeUndefined();
  });
});

describe('items', () => {
  it('keeps items in append order and round-trips every item type', () => {
    const { store, file } = openStore();
    store.threads.upsert(threadRecord('t'));
    const items: ConversationItem[] = [
      userMessage('u1', 'first line\nsecond line', 1),
      { id: 'a1', turnId: null, createdAtMs: 2, startedAtMs: 2, completedAtMs: 2, type: 'agentMessage', text: 'héllo ✓ 🚀', ...ITEM_CODEX_NULLS.agentMessage },
      { id: 'r1', turnId: null, createdAtMs: 3, startedAtMs: 3, completedAtMs: 3, type: 'reasoning', summary: ['s'], content: ['c1', 'c2'] },
      {
        id: 'tc1',
        turnId: null,
        createdAtMs: 4,
        startedAtMs: 4,
        completedAtMs: 4,
        type: 'dynamicToolCall',
        namespace: null,
        tool: 'shell',
        callId: 'call-1',
        arguments: { command: ['ls', '-la'], nested: { ok: true } },
        status: 'completed',
        contentItems: [{ type: 'inputText', text: 'total 0' }],
        output: 'total 0',
        success: true,
        durationMs: 12,
      },
      { id: 'f1', turnId: null, createdAtMs: 5, startedAtMs: 5, completedAtMs: 5, type: 'forkMarker', fromThreadId: 'x', fromThreadName: null },
    ];
    for (const item of items) store.items.append('t', item);
    store.close();
    const reopened = StateStore.open(file);
    open.push(reopened);
    expect(reopened.items.list('t')).toEqual(items);
  });

  it('replaces an item in place with its completed form', () => {
    const { store } = openStore();
    store.threads.upsert(threadRecord('t'));
    store.items.append('t', { id: 'a', turnId: null, createdAtMs: 1, startedAtMs: 1, completedAtMs: 1, type: 'agentMessage', text: '', ...ITEM_CODEX_NULLS.agentMessage });
    store.items.append('t', userMessage('b', 'after'));
    store.items.replace({ id: 'a', turnId: null, createdAtMs: 1, startedAtMs: 1, completedAtMs: 1, type: 'agentMessage', text: 'done', ...ITEM_CODEX_NULLS.agentMessage });
    expect(store.items.list('t').map((i) => i.id)).toEqual(['a', 'b']);
    expect(store.items.list('t')[0]).toMatchObject({ text: 'done' });
  });

  it('keeps each thread’s items separate', () => {
    const { store } = openStore();
    store.threads.upsert(threadRecord('a'));
    store.threads.upsert(threadRecord('b'));
    store.items.append('a', userMessage('a1', 'x'));
    store.items.append('b', userMessage('b1', 'y'));
    store.items.append('a', userMessage('a2', 'z'));
    expect(store.items.list('a').map((i) => i.id)).toEqual(['a1', 'a2']);
    expect(store.items.list('b').map((i) => i.id)).toEqual(['b1']);
  });
});

describe('checkpoints', () => {
  it('saves named checkpoints, overwrites by id and loads the latest', () => {
    const { store, file } = openStore();
    store.threads.upsert(threadRecord('t'));
    store.checkpoints.save({ threadId: 't', checkpointId: 'first', reason: 'turn', state: { n: 1 }, createdAtMs: 10 });
    store.checkpoints.save({ threadId: 't', checkpointId: 'latest', reason: 'turn', state: { n: 2 }, createdAtMs: 20 });
    store.checkpoints.save({ threadId: 't', checkpointId: 'latest', reason: 'compact', state: { n: 3, list: [1, 'two'] }, createdAtMs: 30 });
    store.close();
    const reopened = StateStore.open(file);
    open.push(reopened);
    expect(reopened.checkpoints.load('t')).toEqual({
      threadId: 't',
      checkpointId: 'latest',
      reason: 'compact',
      state: { n: 3, list: [1, 'two'] },
      createdAtMs: 30,
    });
    expect(reopened.checkpoints.load('t', 'first')?.state).toEqual({ n: 1 });
    expect(reopened.checkpoints.load('t', 'missing')).toBeUndefined();
    expect(reopened.checkpoints.load('other')).toBeUndefined();
  });
});

describe('events', () => {
  it('appends batches and lists them after a seq, optionally per thread', () => {
    const { store } = openStore();
    expect(store.events.maxSeq()).toBe(0);
    const event = (seq: number, threadId: string | null) => ({
      seq,
      event: 'thread/archived',
      kind: 'thread',
      threadId,
      turnId: null,
      itemId: null,
      createdAtMs: Date.UTC(2025, 0, 1),
      payloadJson: JSON.stringify({ threadId, seq }),
    });
    store.events.appendBatch([event(1, 'a'), event(2, 'b'), event(3, 'a'), event(4, null)]);
    store.events.appendBatch([]);
    expect(store.events.maxSeq()).toBe(4);
    expect(store.events.listAfter(1, 10).map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(store.events.listAfter(0, 2).map((e) => e.seq)).toEqual([1, 2]);
    expect(store.events.listAfter(0, 10, 'a').map((e) => e.seq)).toEqual([1, 3]);
    expect(store.events.listAfter(0, 1)[0]).toMatchObject({
      schemaVersion: 1,
      event: 'thread/archived',
      kind: 'thread',
      threadId: 'a',
      timestamp: '2025-01-01T00:00:00.000Z',
      payload: { threadId: 'a', seq: 1 },
    });
  });

  it('writes a batch all-or-nothing', () => {
    const { store } = openStore();
    const event = (seq: number) => ({
      seq,
      event: 'x',
      kind: 'x',
      threadId: null,
      turnId: null,
      itemId: null,
      createdAtMs: 1,
      payloadJson: 'null',
    });
    store.events.appendBatch([event(1)]);
    expect(() => store.events.appendBatch([event(2), event(1)])).toThrow(/UNIQUE|PRIMARY KEY/);
    expect(store.events.maxSeq()).toBe(1);
  });
});

describe('transaction', () => {
  it('lands all writes or none', () => {
    const { store } = openStore();
    expect(() =>
      store.transaction(() => {
        store.threads.upsert(threadRecord('t'));
        store.items.append('t', userMessage('i', 'x'));
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(store.threads.get('t')).toBeUndefined();
    expect(store.items.list('t')).toEqual([]);
  });

  it('closing twice is harmless; an in-memory store shares the schema', () => {
    const memory = StateStore.inMemory();
    memory.threads.upsert(threadRecord('m'));
    expect(memory.threads.get('m')?.id).toBe('m');
    memory.close();
    memory.close();
  });
});
