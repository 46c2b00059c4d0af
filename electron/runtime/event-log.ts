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

/** `text` is the notification serialised once, ready to write to any carrier. */
export type NotificationListener = (notification: AnyNotification, text: string) => void;

export interface EventLogOptions {
  /** How long events may wait before they are written in one transaction. */
  readonly flushDelayMs?: number;
  /** Write at once when this many events are waiting. */
  readonly maxBatch?: number;
  readonly now?: () => number;
}

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

  constructor(
    private readonly durable: StateStore,
    private readonly memory: StateStore,
    options: EventLogOptions = {},
  ) {
    this.seq = Math.max(durable.events.maxSeq(), memory.events.maxSeq());
    this.flushDelayMs = options.flushDelayMs ?? 25;
    this.maxBatch = options.maxBatch ?? 500;
    this.now = options.now ?? Date.now;
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
      for (const listener of this.listeners) listener(notification, text);
    }
    return seq;
  }

  /** Writes every waiting event now (also called before shutdown). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const durable = this.durableQueue;
    const memory = this.memoryQueue;
    this.durableQueue = [];
    this.memoryQueue = [];
    this.durable.events.appendBatch(durable);
    this.memory.events.appendBatch(memory);
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

  close(): void {
    this.flush();
    this.listeners.clear();
  }
}
