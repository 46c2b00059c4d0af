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
}

const RETRY_DELAY_MS = 1000;
const MAX_UNWRITTEN = 50_000;

/**
 * Assigns every notification a monotonically increasing `seq`, hands it to
 * live listeners at once, and writes it to the event table in batches, so a
 * token stream costs one SQLite commit per batch, never one per token.
 */
export class EventLog {
  private seq: number;
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
    this.seq = Math.max(durable.events.maxSeq(), memory.events.maxSeq());
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
    const seq = ++this.seq;
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
    const queue = scope.ephemeral ? this.memoryQueue : this.durableQueue;
    queue.push(event);
    if (queue.length >= this.maxBatch) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.flushDelayMs);
    if (this.listeners.size > 0) {
      const notification = { method, params, seq } as AnyNotification;
      const text = `{"method":${JSON.stringify(method)},"params":${payloadJson},"seq":${seq}}`;
      for (const listener of this.listeners) listener(notification, text, event);
    }
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

  /** The seq of the oldest event the log still holds (0 when it is empty). */
  oldestSeq(): number {
    this.flush();
    const oldest = [this.durable.events.minSeq(), this.memory.events.minSeq()].filter((seq) => seq > 0);
    return oldest.length > 0 ? Math.min(...oldest) : 0;
  }

  /** Events after `afterSeq` (durable and in-memory), oldest first. */
  replay(afterSeq: number, limit: number, threadId?: string): RuntimeEventEnvelope[] {
    this.flush();
    const merged = [
      ...this.durable.events.listAfter(afterSeq, limit, threadId),
      ...this.memory.events.listAfter(afterSeq, limit, threadId),
    ];
    merged.sort((a, b) => a.seq - b.seq);
    return merged.slice(0, limit);
  }

  /**
   * Keeps the log bounded: token deltas for a day (enough for any reconnect),
   * everything else for 30 days. The durable log keeps its newest seq, so
   * numbering never restarts.
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
