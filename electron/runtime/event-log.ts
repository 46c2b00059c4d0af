import type {
  AnyNotification,
  NotificationMethod,
  NotificationParamsOf,
  RuntimeEventEnvelope,
} from '../../shared/protocol/index.js';
import type { PendingEvent } from '../store/event-store.js';
import type { StateStore } from '../store/state-store.js';

/** Which thread/turn/item a notification is about, for the log and for replay. */
export interface EventScope {
  readonly threadId?: string | null;
  readonly turnId?: string | null;
  readonly itemId?: string | null;
  /** Ephemeral threads log to the in-memory store only. */
  readonly ephemeral?: boolean;
  /**
   * Sent to clients and never logged: for output that has its own durable copy
   * (a job's log file), which would otherwise pile up in the in-memory log.
   */
  readonly unlogged?: boolean;
}

/**
 * `text` is the notification serialised once, ready to write to any carrier;
 * `logged` is the same event as the log stores it (scope, time), for carriers
 * that send RuntimeEventEnvelopes (SSE).
 */
export type NotificationListener = (notification: AnyNotification, text: string, logged: PendingEvent) => void;

export interface EventLogOptions {
  /** How long events may wait before they are written in one transaction. */
  readonly flushDelayMs?: number;
  /** Write at once when this many events are waiting. */
  readonly maxBatch?: number;
  readonly now?: () => number;
  /** Where a failed write is reported; the events stay queued for the next flush. */
  readonly onError?: (message: string, error: unknown) => void;
  /** How many seq values one durable reservation covers (it grows while blocks run out within a second). */
  readonly reserveBlock?: number;
}

/** What `events/replay` answers. */
export interface ReplayResult {
  readonly events: RuntimeEventEnvelope[];
  /**
   * True when the log no longer holds everything after `afterSeq` (pruned, or
   * a seq this home never handed out): the client must reload its state.
   */
  readonly reset: boolean;
  /** The oldest seq whose events are all still in the log (replay from `oldestSeq - 1` is whole). */
  readonly oldestSeq: number;
}

const RETRY_DELAY_MS = 1000;
const MAX_UNWRITTEN = 50_000;
const DEFAULT_RESERVE_BLOCK = 1000;
const MAX_BLOCK_GROWTH = 64;

/**
 * Assigns every notification a monotonically increasing `seq`, hands it to
 * live listeners at once, and writes it to the event table in batches, so a
 * token stream costs one SQLite commit per batch, never one per token.
 *
 * Events reach clients before their batch is written, and ephemeral events
 * are never written, so the newest seq on disk says nothing about what
 * clients have seen. Numbers are therefore reserved durably in blocks before
 * they are handed out: after a crash numbering resumes above the reservation
 * (a gap, never a reuse).
 */
export class EventLog {
  private seq: number;
  private reservedThrough: number;
  private readonly reserveBlock: number;
  private block: number;
  private reservedAtMs = -Infinity;
  private readonly listeners = new Set<NotificationListener>();
  private durableQueue: PendingEvent[] = [];
  private memoryQueue: PendingEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly flushDelayMs: number;
  private readonly maxBatch: number;
  private readonly now: () => number;
  private readonly onError: (message: string, error: unknown) => void;

  constructor(
    private readonly durable: StateStore,
    private readonly memory: StateStore,
    options: EventLogOptions = {},
  ) {
    this.seq = Math.max(durable.events.reservedThrough(), memory.events.maxSeq());
    this.reservedThrough = this.seq;
    this.reserveBlock = options.reserveBlock ?? DEFAULT_RESERVE_BLOCK;
    this.block = this.reserveBlock;
    this.flushDelayMs = options.flushDelayMs ?? 25;
    this.maxBatch = options.maxBatch ?? 500;
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => undefined);
  }

  /** The seq of the newest event. */
  get lastSeq(): number {
    return this.seq;
  }

  subscribe(listener: NotificationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Logs and broadcasts one notification; returns its seq. */
  publish<N extends NotificationMethod>(method: N, params: NotificationParamsOf<N>, scope: EventScope = {}): number {
    const seq = this.nextSeq();
    // Serialise once: the same JSON goes to the log and to every client.
    const payloadJson = JSON.stringify(params ?? null);
    const event: PendingEvent = {
      seq,
      event: method,
      kind: method.split('/')[0] ?? method,
      threadId: scope.threadId ?? null,
      turnId: scope.turnId ?? null,
      itemId: scope.itemId ?? null,
      createdAtMs: this.now(),
      payloadJson,
    };
    if (!scope.unlogged) {
      const queue = scope.ephemeral ? this.memoryQueue : this.durableQueue;
      queue.push(event);
      if (queue.length >= this.maxBatch) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.flushDelayMs);
    }
    if (this.listeners.size > 0) {
      const notification = { method, params, seq } as AnyNotification;
      const text = `{"method":${JSON.stringify(method)},"params":${payloadJson},"seq":${seq}}`;
      for (const listener of this.listeners) listener(notification, text, event);
    }
    return seq;
  }

  private nextSeq(): number {
    const seq = this.seq + 1;
    if (seq > this.reservedThrough) {
      // Each reservation is a synced write (a few ms): under a fast stream the block
      // grows so that happens about once a second at most.
      const at = performance.now();
      this.block = at - this.reservedAtMs < 1000 ? Math.min(this.block * 2, this.reserveBlock * MAX_BLOCK_GROWTH) : this.reserveBlock;
      this.reservedAtMs = at;
      const through = seq + this.block - 1;
      try {
        this.durable.events.reserveThrough(through);
      } catch (error) {
        // The events cannot be written either; numbering goes on in memory and
        // the reservation is retried with the next block.
        this.onError('could not reserve event sequence numbers', error);
      }
      this.reservedThrough = through;
    }
    this.seq = seq;
    return seq;
  }

  /**
   * Writes every waiting event now (also called before shutdown). A failed
   * write (disk full, a lock held too long) is reported and retried with the
   * next flush; it never takes the process down.
   */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.durableQueue = this.write(this.durable, this.durableQueue);
    this.memoryQueue = this.write(this.memory, this.memoryQueue);
    if (this.durableQueue.length + this.memoryQueue.length > 0) {
      this.timer = setTimeout(() => this.flush(), RETRY_DELAY_MS);
    }
  }

  /** Returns what could not be written. */
  private write(store: StateStore, queue: PendingEvent[]): PendingEvent[] {
    if (queue.length === 0) return queue;
    try {
      store.events.appendBatch(queue);
      return [];
    } catch (error) {
      this.onError(`could not write ${queue.length} events to the log`, error);
      // Bounded: a log that cannot be written must not eat all memory.
      return queue.length > MAX_UNWRITTEN ? queue.slice(queue.length - MAX_UNWRITTEN) : queue;
    }
  }

  /** Events after `afterSeq` (durable and in-memory), oldest first. */
  replay(afterSeq: number, limit: number, threadId?: string): ReplayResult {
    this.flush();
    const merged = [
      ...this.durable.events.listAfter(afterSeq, limit, threadId),
      ...this.memory.events.listAfter(afterSeq, limit, threadId),
    ];
    merged.sort((a, b) => a.seq - b.seq);
    const oldestSeq = Math.max(this.durable.events.prunedThrough(), this.memory.events.prunedThrough()) + 1;
    // A seq above the newest handed out comes from another home (or a restored backup).
    const reset = afterSeq < oldestSeq - 1 || afterSeq > this.seq;
    return { events: merged.slice(0, limit), reset, oldestSeq };
  }

  /**
   * Keeps the log bounded: token deltas for a day (enough for any reconnect),
   * everything else for 30 days. Numbering never restarts (the reservation
   * is kept apart from the events).
   */
  prune(now = this.now()): number {
    this.flush();
    const day = 24 * 60 * 60 * 1000;
    let removed = 0;
    for (const store of [this.durable, this.memory]) {
      try {
        removed += store.events.prune(now - day, now - 30 * day);
      } catch (error) {
        this.onError('could not prune the event log', error);
      }
    }
    return removed;
  }

  close(): void {
    this.flush();
    // Whatever still failed is lost with the process; no retry may outlive the stores.
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }
}
