import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AnyNotification } from '../../shared/protocol/index.js';
import { threadRecord } from '../../test-support/records.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { StateStore } from '../store/state-store.js';
import { EventLog } from './event-log.js';

const temp = new TempDirs();
const stores: StateStore[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const store of stores.splice(0)) store.close();
  temp.cleanup();
});

function openStores(file = path.join(temp.make(), 'state.sqlite')) {
  const durable = StateStore.open(file);
  const memory = StateStore.inMemory();
  stores.push(durable, memory);
  return { durable, memory, file };
}

/** Resolves after the log's end-of-turn flush (setImmediate callbacks run in order). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('EventLog', () => {
  it('gives every notification the next seq and the time it was logged (emittedAtMs), and hands it to listeners once it is written', async () => {
    const { durable, memory } = openStores();
    let clock = 1_000;
    const log = new EventLog(durable, memory, { now: () => clock });
    const seen: AnyNotification[] = [];
    const texts: string[] = [];
    const stop = log.subscribe((n, text) => {
      seen.push(n);
      texts.push(text);
    });
    expect(log.publish('thread/archived', { threadId: 'a' }, { threadId: 'a' })).toBe(1);
    clock = 1_005;
    expect(log.publish('thread/unarchived', { threadId: 'a' }, { threadId: 'a' })).toBe(2);
    clock = 2_000;
    expect(seen).toEqual([]);
    expect(durable.events.maxSeq()).toBe(0);
    await nextTurn();
    expect(durable.events.maxSeq()).toBe(2);
    expect(seen).toEqual([
      { method: 'thread/archived', params: { threadId: 'a' }, seq: 1, emittedAtMs: 1_000 },
      { method: 'thread/unarchived', params: { threadId: 'a' }, seq: 2, emittedAtMs: 1_005 },
    ]);
    expect(texts.map((text) => JSON.parse(text) as unknown)).toEqual(seen);
    stop();
    log.publish('thread/archived', { threadId: 'b' });
    await nextTurn();
    expect(seen).toHaveLength(2);
    expect(log.lastSeq).toBe(3);
    log.close();
  });

  it('finds every event it announces already in the log (durable before announced)', async () => {
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory);
    const missing: number[] = [];
    log.subscribe((n) => {
      const stored = durable.events.listAfter(n.seq! - 1, 1)[0];
      if (stored?.seq !== n.seq) missing.push(n.seq!);
    });
    for (let i = 0; i < 50; i++) {
      log.publish('item/agentMessage/delta', { threadId: 't', turnId: 'u', itemId: 'i', delta: `${i}` }, { threadId: 't' });
      if (i % 7 === 0) await nextTurn();
    }
    await nextTurn();
    expect(missing).toEqual([]);
    log.close();
  });

  it('writes what one turn of the event loop published in one transaction, not one commit per event', async () => {
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory);
    const batches: number[] = [];
    const append = durable.events.appendBatch.bind(durable.events);
    vi.spyOn(durable.events, 'appendBatch').mockImplementation((events) => {
      batches.push(events.length);
      append(events);
    });
    for (let i = 0; i < 10; i++) log.publish('thread/archived', { threadId: `t${i}` });
    await nextTurn();
    log.publish('thread/archived', { threadId: 'later' });
    await nextTurn();
    expect(batches).toEqual([10, 1]);
    log.close();
  });

  it('announces durable, in-memory and unlogged events in publish order; none overtakes one still unwritten', async () => {
    const { durable, memory } = openStores();
    const errors: string[] = [];
    const log = new EventLog(durable, memory, { onError: (message) => errors.push(message) });
    const seen: string[] = [];
    log.subscribe((n) => seen.push(`${n.seq}:${n.method}`));
    vi.spyOn(durable.events, 'appendBatch').mockImplementationOnce(() => {
      throw new Error('SQLITE_FULL: database or disk is full');
    });
    log.publish('thread/archived', { threadId: 'd' }, { threadId: 'd' });
    log.publish('thread/archived', { threadId: 'e' }, { threadId: 'e', ephemeral: true });
    log.publish('job/output/delta', { jobId: 'job-1', attempt: 1, offset: 0, delta: 'out' }, { unlogged: true });
    await nextTurn();
    // The durable write failed: nothing behind it may be announced either.
    expect(seen).toEqual([]);
    expect(errors).toEqual(['could not write 1 events to the log']);
    log.flush(); // the retry (a second later on its own)
    expect(seen).toEqual(['1:thread/archived', '2:thread/archived', '3:job/output/delta']);
    expect(durable.events.listAfter(0, 10).map((e) => e.seq)).toEqual([1]);
    expect(memory.events.listAfter(0, 10).map((e) => e.seq)).toEqual([2]);
    log.close();
  });

  it('holds events while the log cannot be written; past 50,000 the oldest go out without a copy, and it says so', async () => {
    const { durable, memory } = openStores();
    const errors: string[] = [];
    const log = new EventLog(durable, memory, { onError: (message) => errors.push(message) });
    const seen: number[] = [];
    log.subscribe((n) => seen.push(n.seq!));
    vi.spyOn(durable.events, 'appendBatch').mockImplementation(() => {
      throw new Error('SQLITE_FULL: database or disk is full');
    });
    for (let i = 0; i < 50_003; i++) log.publish('thread/archived', { threadId: 't' });
    await nextTurn();
    expect(seen).toEqual([1, 2, 3]);
    expect(errors).toEqual(['could not write 50003 events to the log', 'the event log could not be written: 3 events announced without a copy in the log']);
    log.close();
  });

  it('commits state and its events in one transaction, announced after it', async () => {
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory);
    const seen: number[] = [];
    log.subscribe((n) => seen.push(n.seq!));
    log.publish('thread/archived', { threadId: 'before' });
    const result = log.commit(durable, () => {
      durable.threads.upsert(threadRecord('t'));
      log.publish('thread/name/updated', { threadId: 't', threadName: 'x' }, { threadId: 't' });
      return 'done';
    });
    expect(result).toBe('done');
    expect(durable.threads.get('t')).not.toBeNull();
    // Written with the commit (the earlier event too, so the log stays a prefix), not yet announced.
    expect(durable.events.listAfter(0, 10).map((e) => e.seq)).toEqual([1, 2]);
    expect(seen).toEqual([]);
    await nextTurn();
    expect(seen).toEqual([1, 2]);
    log.close();
  });

  it('drops the events of a commit that threw, with its state, and keeps the ones before it', async () => {
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory);
    const seen: number[] = [];
    log.subscribe((n) => seen.push(n.seq!));
    log.publish('thread/archived', { threadId: 'before' });
    expect(() =>
      log.commit(durable, () => {
        durable.threads.upsert(threadRecord('g'));
        log.publish('thread/archived', { threadId: 'g' }, { threadId: 'g' });
        throw new Error('half-way');
      }),
    ).toThrow('half-way');
    expect(durable.threads.get('g')).toBeUndefined();
    log.publish('thread/archived', { threadId: 'after' });
    await nextTurn();
    expect(seen).toEqual([1, 3]);
    expect(durable.events.listAfter(0, 10).map((e) => e.seq)).toEqual([1, 3]);
    log.close();
  });

  it('syncs a seq reservation made inside a rolled-back commit again before announcing', async () => {
    const { durable, memory, file } = openStores();
    const log = new EventLog(durable, memory, { reserveBlock: 2 });
    const seen: number[] = [];
    log.subscribe((n) => seen.push(n.seq!));
    expect(() =>
      log.commit(durable, () => {
        for (let i = 0; i < 5; i++) log.publish('thread/archived', { threadId: 'rolled-back' }, { unlogged: true });
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    log.publish('job/output/delta', { jobId: 'j', attempt: 1, offset: 0, delta: 'x' }, { unlogged: true });
    await nextTurn();
    expect(seen).toEqual([6]);
    // A crash now: nothing in the file names seq 6, yet it must never be handed out again.
    durable.close();
    const reopened = openStores(file);
    const next = new EventLog(reopened.durable, reopened.memory);
    expect(next.publish('thread/archived', { threadId: 'after' })).toBeGreaterThan(6);
    next.close();
  });

  it('keeps ephemeral events out of the file and replays both kinds in seq order', () => {
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory);
    log.publish('thread/archived', { threadId: 'd' }, { threadId: 'd' });
    log.publish('thread/archived', { threadId: 'e' }, { threadId: 'e', ephemeral: true });
    log.publish('thread/unarchived', { threadId: 'd' }, { threadId: 'd' });
    const replay = log.replay(0, 10).events;
    expect(replay.map((e) => [e.seq, e.event, e.threadId])).toEqual([
      [1, 'thread/archived', 'd'],
      [2, 'thread/archived', 'e'],
      [3, 'thread/unarchived', 'd'],
    ]);
    expect(durable.events.listAfter(0, 10).map((e) => e.seq)).toEqual([1, 3]);
    expect(memory.events.listAfter(0, 10).map((e) => e.seq)).toEqual([2]);
    expect(log.replay(1, 1).events.map((e) => e.seq)).toEqual([2]);
    expect(log.replay(0, 10, 'd').events.map((e) => e.seq)).toEqual([1, 3]);
    expect(replay[0]).toMatchObject({ kind: 'thread', payload: { threadId: 'd' } });
    log.close();
  });

  it('sends unlogged events (job output, kept in its own log file) to listeners without storing them', async () => {
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory);
    const seen: string[] = [];
    log.subscribe((n) => seen.push(n.method));
    log.publish('job/output/delta', { jobId: 'job-1', attempt: 1, offset: 0, delta: 'hello' }, { unlogged: true });
    log.publish('thread/archived', { threadId: 'd' }, { threadId: 'd' });
    await nextTurn();
    expect(seen).toEqual(['job/output/delta', 'thread/archived']);
    expect(log.replay(0, 10).events.map((e) => [e.seq, e.event])).toEqual([[2, 'thread/archived']]);
    expect(memory.events.listAfter(0, 10)).toEqual([]);
    log.close();
  });

  it('flushes on close and continues numbering after a restart', () => {
    const { durable, memory, file } = openStores();
    const log = new EventLog(durable, memory);
    log.publish('thread/archived', { threadId: 'a' });
    log.publish('thread/archived', { threadId: 'b' });
    log.close();
    durable.close();

    const reopened = openStores(file);
    const next = new EventLog(reopened.durable, reopened.memory);
    expect(next.publish('thread/archived', { threadId: 'c' })).toBeGreaterThan(2);
    const replay = next.replay(0, 10);
    expect(replay.events.map((e) => e.payload)).toEqual([{ threadId: 'a' }, { threadId: 'b' }, { threadId: 'c' }]);
    expect(replay.reset).toBe(false);
    next.close();
  });

  it('never hands out a seq twice after a crash that lost the unwritten batch', () => {
    const { durable, memory, file } = openStores();
    // A driven clock that never moves: the batch's write never runs, as in a process that crashed first.
    vi.useFakeTimers({ toFake: ['setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout'] });
    const log = new EventLog(durable, memory, { reserveBlock: 4 });
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) seen.push(log.publish('thread/archived', { threadId: `t${i}` }));
    vi.useRealTimers();
    // Seq 1..10 went out (thread/read reports lastSeq); the crash leaves none of them in the file.
    expect(durable.events.maxSeq()).toBe(0);
    durable.close();

    const reopened = openStores(file);
    const next = new EventLog(reopened.durable, reopened.memory, { reserveBlock: 4 });
    expect(next.publish('thread/archived', { threadId: 'after' })).toBeGreaterThan(Math.max(...seen));
    next.close();
  });

  it('ephemeral events take numbers from the same durable sequence', () => {
    const { durable, memory, file } = openStores();
    const log = new EventLog(durable, memory, { reserveBlock: 2 });
    log.publish('thread/archived', { threadId: 'kept' }, { threadId: 'kept' });
    const lastEphemeral = [1, 2, 3, 4, 5].map(() => log.publish('thread/archived', { threadId: 'e' }, { threadId: 'e', ephemeral: true })).at(-1)!;
    log.close();
    durable.close();

    const reopened = openStores(file);
    const next = new EventLog(reopened.durable, reopened.memory, { reserveBlock: 2 });
    expect(next.publish('thread/archived', { threadId: 'after' })).toBeGreaterThan(lastEphemeral);
    next.close();
  });

  it('reserves seqs in blocks, one durable write per block, larger blocks while they run out fast', () => {
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory, { reserveBlock: 100 });
    log.publish('thread/archived', { threadId: 'a' });
    expect(durable.events.reservedThrough()).toBe(100);
    for (let i = 0; i < 99; i++) log.publish('thread/archived', { threadId: 'a' });
    expect(durable.events.reservedThrough()).toBe(100);
    log.publish('thread/archived', { threadId: 'a' });
    // The first block ran out within a second: the next one is twice as large.
    expect(durable.events.reservedThrough()).toBe(300);
    log.close();
  });

  it('tells a client asking for a seq this home never handed out to reload', () => {
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory);
    log.publish('thread/archived', { threadId: 'a' });
    expect(log.replay(1, 10)).toMatchObject({ events: [], reset: false });
    expect(log.replay(50, 10)).toMatchObject({ events: [], reset: true });
    log.close();
  });
});

describe('output stored by reference', () => {
  it('keeps where a delta\'s bytes are instead of the bytes; replay reads them back; a removed log ends the replay with reset', async () => {
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory);
    const file = path.join(temp.make(), 'proc.log');
    const bytes = Buffer.from('héllo, wörld ✓\n'.repeat(40));
    fs.writeFileSync(file, Buffer.concat([Buffer.from('x'), bytes]));
    const delta = bytes.toString('utf8');
    const params = { threadId: 't', turnId: 'u', itemId: 'i', delta };
    const live: string[] = [];
    log.subscribe((_n, text) => live.push(text));
    log.publish('item/commandExecution/outputDelta', params, { threadId: 't', output: { file, offset: 1, length: bytes.length } });
    log.publish('thread/archived', { threadId: 't' }, { threadId: 't' });
    await nextTurn();
    // Clients get the text itself; the row holds none of it.
    expect(JSON.parse(live[0]!)).toMatchObject({ params: { delta } });
    const row = durable.db.prepare('SELECT payload, output_offset AS offset, output_length AS length FROM events WHERE seq = 1').get() as { payload: string; offset: number; length: number };
    expect(row).toEqual({ payload: JSON.stringify({ threadId: 't', turnId: 'u', itemId: 'i' }), offset: 1, length: bytes.length });
    expect(log.replay(0, 10)).toMatchObject({ reset: false, events: [{ seq: 1, payload: params }, { seq: 2 }] });

    fs.rmSync(file);
    // The bytes are gone: a client from before them must reload; one past them replays as usual.
    expect(log.replay(0, 10)).toMatchObject({ reset: true, events: [] });
    expect(log.replay(1, 10)).toMatchObject({ reset: false, events: [{ seq: 2 }] });
    log.close();
  });
});

describe('event log retention', () => {
  it('drops old token deltas after a day and everything after 30 days; replay from before a pruned event says reset', async () => {
    const { StateStore } = await import('../store/state-store.js');
    const { EventLog } = await import('./event-log.js');
    const durable = StateStore.inMemory();
    const memory = StateStore.inMemory();
    let clock = 0;
    const log = new EventLog(durable, memory, { now: () => clock });
    const day = 24 * 60 * 60 * 1000;
    log.publish('thread/archived', { threadId: 'old' }, { threadId: 'old' });
    clock = 15 * day;
    log.publish('item/agentMessage/delta', { threadId: 't', turnId: 'u', itemId: 'i', delta: 'x' }, { threadId: 't' });
    log.publish('thread/archived', { threadId: 'kept' }, { threadId: 'kept' });
    clock = 40 * day;
    log.publish('item/agentMessage/delta', { threadId: 't', turnId: 'u', itemId: 'i', delta: 'fresh' }, { threadId: 't' });
    expect(log.prune(clock) + durable.retention.pruneEvents(clock - 30 * day, Infinity)).toBe(2);
    const afterPrune = log.replay(0, 100);
    expect(afterPrune.events.map((e) => e.payload)).toEqual([{ threadId: 'kept' }, { threadId: 't', turnId: 'u', itemId: 'i', delta: 'fresh' }]);
    // The client that saw seq 0 or 1 missed the pruned delta (seq 2): it must reload.
    expect(afterPrune).toMatchObject({ reset: true, oldestSeq: 3 });
    expect(log.replay(1, 100).reset).toBe(true);
    expect(log.replay(2, 100)).toMatchObject({ reset: false, events: [{ seq: 3 }, { seq: 4 }] });
    clock = 400 * day;
    log.prune(clock);
    durable.retention.pruneEvents(clock - 30 * day, Infinity);
    expect(log.replay(2, 100)).toMatchObject({ events: [], reset: true, oldestSeq: 5 });
    // Numbering goes on above everything pruned.
    expect(log.publish('thread/archived', { threadId: 'new' })).toBe(5);
    expect(log.replay(4, 100)).toMatchObject({ reset: false, events: [{ seq: 5 }] });
    log.close();
    durable.close();
    memory.close();
  });
});
