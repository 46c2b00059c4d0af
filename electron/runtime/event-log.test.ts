import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AnyNotification } from '../../shared/protocol/index.js';
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

describe('EventLog', () => {
  it('gives every notification the next seq and hands it to listeners at once', () => {
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory);
    const seen: AnyNotification[] = [];
    const stop = log.subscribe((n) => seen.push(n));
    expect(log.publish('thread/archived', { threadId: 'a' }, { threadId: 'a' })).toBe(1);
    expect(log.publish('thread/unarchived', { threadId: 'a' }, { threadId: 'a' })).toBe(2);
    expect(seen).toEqual([
      { method: 'thread/archived', params: { threadId: 'a' }, seq: 1 },
      { method: 'thread/unarchived', params: { threadId: 'a' }, seq: 2 },
    ]);
    stop();
    log.publish('thread/archived', { threadId: 'b' });
    expect(seen).toHaveLength(2);
    expect(log.lastSeq).toBe(3);
    log.close();
  });

  it('writes events in batches after a short delay, not one commit per event', () => {
    vi.useFakeTimers();
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory, { flushDelayMs: 50, maxBatch: 1000 });
    for (let i = 0; i < 10; i++) log.publish('thread/archived', { threadId: `t${i}` });
    expect(durable.events.maxSeq()).toBe(0);
    vi.advanceTimersByTime(49);
    expect(durable.events.maxSeq()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(durable.events.maxSeq()).toBe(10);
    log.close();
  });

  it('writes at once when a batch fills up', () => {
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory, { flushDelayMs: 60_000, maxBatch: 3 });
    log.publish('thread/archived', { threadId: 'a' });
    log.publish('thread/archived', { threadId: 'b' });
    expect(durable.events.maxSeq()).toBe(0);
    log.publish('thread/archived', { threadId: 'c' });
    expect(durable.events.maxSeq()).toBe(3);
    log.close();
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

  it('sends unlogged events (job output, kept in its own log file) to listeners without storing them', () => {
    const { durable, memory } = openStores();
    const log = new EventLog(durable, memory);
    const seen: string[] = [];
    log.subscribe((n) => seen.push(n.method));
    log.publish('job/output/delta', { jobId: 'job-1', attempt: 1, offset: 0, delta: 'hello' }, { unlogged: true });
    log.publish('thread/archived', { threadId: 'd' }, { threadId: 'd' });
    expect(seen).toEqual(['job/output/delta', 'thread/archived']);
    expect(log.replay(0, 10).events.map((e) => [e.seq, e.event])).toEqual([[2, 'thread/archived']]);
    expect(memory.events.listAfter(0, 10)).toEqual([]);
    log.close();
  });

  it('flushes on close and continues numbering after a restart', () => {
    const { durable, memory, file } = openStores();
    const log = new EventLog(durable, memory, { flushDelayMs: 60_000 });
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
    const log = new EventLog(durable, memory, { flushDelayMs: 60_000, reserveBlock: 4 });
    const seen: number[] = [];
    log.subscribe((n) => seen.push(n.seq!));
    for (let i = 0; i < 10; i++) log.publish('thread/archived', { threadId: `t${i}` });
    // Clients saw seq 1..10; the crash leaves none of them in the file.
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
    const log = new EventLog(durable, memory, { flushDelayMs: 60_000, reserveBlock: 100 });
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
    expect(log.prune(clock)).toBe(2);
    const afterPrune = log.replay(0, 100);
    expect(afterPrune.events.map((e) => e.payload)).toEqual([{ threadId: 'kept' }, { threadId: 't', turnId: 'u', itemId: 'i', delta: 'fresh' }]);
    // The client that saw seq 0 or 1 missed the pruned delta (seq 2): it must reload.
    expect(afterPrune).toMatchObject({ reset: true, oldestSeq: 3 });
    expect(log.replay(1, 100).reset).toBe(true);
    expect(log.replay(2, 100)).toMatchObject({ reset: false, events: [{ seq: 3 }, { seq: 4 }] });
    clock = 400 * day;
    log.prune(clock);
    expect(log.replay(2, 100)).toMatchObject({ events: [], reset: true, oldestSeq: 5 });
    // Numbering goes on above everything pruned.
    expect(log.publish('thread/archived', { threadId: 'new' })).toBe(5);
    expect(log.replay(4, 100)).toMatchObject({ reset: false, events: [{ seq: 5 }] });
    log.close();
    durable.close();
    memory.close();
  });
});
