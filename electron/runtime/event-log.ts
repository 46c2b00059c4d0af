import type {
  AnyNotification,
  NotificationMethod,
  NotificationParamsOf,
  RuntimeEventEnvelope,
} from '../../shared/protocol/index.js';
import type { OutputRef, PendingEvent } from '../store/event-store.js';
import type { StateStore } from '../store/state-store.js';
import { EventSequence } from './event-sequence.js';

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
  /**
   * The params' `delta` is exactly these bytes of a process log, written
   * before this publish: the log keeps the reference, not a second copy.
   */
  readonly output?: OutputRef;
}

/**
 * `text` is the notification serialised once, ready to write to any carrier;
 * `logged` is the same event as the log stores it (scope, time), for carriers
 * that send RuntimeEventEnvelopes (SSE).
 */
export type NotificationListener = (notification: AnyNotification, text: string, logged: PendingEvent) => void;

export interface EventLogOptions {
  /**
   * How long published events may wait before their batch is written and
   * announced. 0 (the default): at the end of the current turn of the event
   * loop, so everything published in one turn shares one commit.
   */
  readonly flushDelayMs?: number;
  readonly now?: () => number;
  /** Where a failed write is reported; the events stay queued (unannounced) for the next try. */
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
/** Events held while the log cannot be written; past this the oldest are announced without a copy in the log. */
const MAX_HELD = 50_000;
const DEFAULT_RESERVE_BLOCK = 1000;

/** A published event waiting for its batch to be written and announced. */
interface Outgoing {
  readonly method: NotificationMethod;
  readonly params: unknown;
  readonly logged: PendingEvent;
}

/**
 * Assigns every notification a monotonically increasing `seq`, writes it to
 * the event table, and only then hands it to listeners (every carrier):
 * durable before announced, so a replay after a crash holds everything any
 * client saw.
 *
 * Group commit: events published in one turn of the event loop are written in
 * one transaction per store at the end of that turn, then announced in
 * publish order, so a token stream costs one commit per turn, never one per
 * token. Events that are not logged (unlogged job output) or logged in memory
 * (ephemeral threads) wait in the same line: none overtakes an event
 * published before it.
 *
 * Where a state change and its event must survive a crash together, `commit`
 * writes both in one transaction. Numbering (never reused, always growing,
 * also across crashes) is EventSequence's.
 */
export class EventLog {
  private readonly sequence: EventSequence;
  private readonly listeners = new Set<NotificationListener>();
  /** Published and not yet announced, in seq order. */
  private outbox: Outgoing[] = [];
  /** Of those, the ones still to be written, per store, in seq order. */
  private durableUnwritten: PendingEvent[] = [];
  private memoryUnwritten: PendingEvent[] = [];
  private scheduled: { cancel(): void } | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private announcing = false;
  /** Waiting for every event up to `seq` to be announced. */
  private waiters: { readonly seq: number; readonly resolve: () => void }[] = [];
  private readonly flushDelayMs: number;
  private readonly now: () => number;
  private readonly onError: (message: string, error: unknown) => void;

  constructor(
    private readonly durable: StateStore,
    private readonly memory: StateStore,
    options: EventLogOptions = {},
  ) {
    this.flushDelayMs = options.flushDelayMs ?? 0;
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => undefined);
    this.sequence = new EventSequence(durable, memory, options.reserveBlock ?? DEFAULT_RESERVE_BLOCK, this.onError);
  }

  /** The seq of the newest event published (announced at the end of this turn of the event loop at the latest). */
  get lastSeq(): number {
    return this.sequence.last;
  }

  subscribe(listener: NotificationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves once every event published so far has reached the listeners
   * (for an in-process client that acts on a call's notifications, as a
   * carrier's client waits for the lines after a response).
   */
  announced(): Promise<void> {
    if (this.outbox.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ seq: this.sequence.last, resolve }));
  }

  /**
   * Logs one notification and announces it once it is written (at the end of
   * this turn of the event loop); returns its seq. Its JSON is taken now, and
   * in-process listeners get `params` itself later: it must not change after this call.
   */
  publish<N extends NotificationMethod>(method: N, params: NotificationParamsOf<N>, scope: EventScope = {}): number {
    const seq = this.sequence.next();
    const logged: PendingEvent = {
      seq,
      event: method,
      kind: method.split('/')[0] ?? method,
      threadId: scope.threadId ?? null,
      turnId: scope.turnId ?? null,
      itemId: scope.itemId ?? null,
      createdAtMs: this.now(),
      // Serialised once: the same JSON goes to the log and to every client.
      payloadJson: JSON.stringify(params ?? null),
      ...(scope.unlogged ? { unlogged: true } : {}),
      ...(scope.output ? { output: { ref: scope.output, storedPayloadJson: JSON.stringify({ ...(params as object), delta: undefined }) } } : {}),
    };
    this.outbox.push({ method, params, logged });
    if (!scope.unlogged) (scope.ephemeral ? this.memoryUnwritten : this.durableUnwritten).push(logged);
    this.schedule();
    return seq;
  }

  /**
   * Runs `write` (state changes and the `publish` calls that announce them)
   * in one transaction of `store` together with the log rows of every event
   * waiting to be written, so a crash keeps both or neither. The events are
   * announced after the commit, as any others. If `write` throws, nothing it
   * wrote is kept and its events are never announced (their seqs are a gap).
   */
  commit<T>(store: StateStore, write: () => T): T {
    const firstSeq = this.sequence.last + 1;
    // Inside an outer transaction the rows go with whoever commits it.
    const outermost = store === this.durable && !store.db.inTransaction;
    let taken: PendingEvent[] = [];
    try {
      return store.transaction(() => {
        const result = write();
        if (outermost && this.durableUnwritten.length > 0) {
          taken = this.durableUnwritten;
          this.durableUnwritten = [];
          store.events.appendBatch(taken);
        }
        return result;
      });
    } catch (error) {
      // Rolled back: events published before `write` are still to be written; its own are dropped.
      this.durableUnwritten = [...taken.filter((event) => event.seq < firstSeq), ...this.durableUnwritten];
      this.dropFrom(firstSeq);
      throw error;
    }
  }

  private dropFrom(firstSeq: number): void {
    const keep = <T>(list: T[], seqOf: (item: T) => number) => {
      while (list.length > 0 && seqOf(list[list.length - 1]!) >= firstSeq) list.pop();
    };
    keep(this.outbox, (outgoing) => outgoing.logged.seq);
    keep(this.durableUnwritten, (event) => event.seq);
    keep(this.memoryUnwritten, (event) => event.seq);
  }

  private schedule(): void {
    // While a failed write waits for its retry, new events wait with it.
    if (this.scheduled || this.retryTimer) return;
    if (this.flushDelayMs > 0) {
      const timer = setTimeout(() => this.flush(), this.flushDelayMs);
      this.scheduled = { cancel: () => clearTimeout(timer) };
    } else {
      const immediate = setImmediate(() => this.flush());
      this.scheduled = { cancel: () => clearImmediate(immediate) };
    }
  }

  /**
   * Writes every waiting event, then announces them in order (also called
   * before replay and shutdown). A failed write (disk full, a lock held too
   * long) is reported and retried a second later; until then the events it
   * held, and every later one, wait unannounced. It never takes the process down.
   */
  flush(): void {
    // Announced only once written for good: a caller's open transaction may still roll back.
    if (this.durable.db.inTransaction || this.memory.db.inTransaction) return;
    this.scheduled?.cancel();
    this.scheduled = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.durableUnwritten = this.write(this.durable, this.durableUnwritten);
    this.memoryUnwritten = this.write(this.memory, this.memoryUnwritten);
    const synced = this.sequence.sync();
    if (synced) this.announceWritten();
    if (!synced || this.durableUnwritten.length + this.memoryUnwritten.length > 0) {
      this.retryTimer = setTimeout(() => this.flush(), RETRY_DELAY_MS);
    }
  }

  /** Returns what could not be written. */
  private write(store: StateStore, events: PendingEvent[]): PendingEvent[] {
    if (events.length === 0) return events;
    try {
      store.events.appendBatch(events);
      return [];
    } catch (error) {
      this.onError(`could not write ${events.length} events to the log`, error);
      return events;
    }
  }

  /** Hands listeners, in seq order, every event written (or not to be written) so far. */
  private announceWritten(): void {
    // A listener that flushes (a replay) must not announce newer events in the middle of this round.
    if (this.announcing) return;
    this.announcing = true;
    try {
      for (;;) {
        let ready = this.readyCount();
        if (ready === 0 && this.giveUpHolding()) ready = this.readyCount();
        if (ready === 0) break;
        const batch = this.outbox.slice(0, ready);
        this.outbox = this.outbox.slice(ready);
        if (this.listeners.size > 0) for (const outgoing of batch) this.announce(outgoing);
      }
    } finally {
      this.announcing = false;
    }
    this.wakeWaiters();
  }

  /** How many events at the head of the outbox are written (or not to be written). */
  private readyCount(): number {
    const firstUnwritten = Math.min(this.durableUnwritten[0]?.seq ?? Infinity, this.memoryUnwritten[0]?.seq ?? Infinity);
    let ready = 0;
    while (ready < this.outbox.length && this.outbox[ready]!.logged.seq < firstUnwritten) ready++;
    return ready;
  }

  private wakeWaiters(): void {
    if (this.waiters.length === 0) return;
    const pendingFrom = this.outbox[0]?.logged.seq ?? Infinity;
    const woken = this.waiters.filter((waiter) => waiter.seq < pendingFrom);
    this.waiters = this.waiters.filter((waiter) => waiter.seq >= pendingFrom);
    for (const waiter of woken) waiter.resolve();
  }

  private announce({ method, params, logged }: Outgoing): void {
    // Codex stamps every notification with when it was emitted; ours is when it happened (the time it is logged with).
    const notification = { method, params, seq: logged.seq, emittedAtMs: logged.createdAtMs } as AnyNotification;
    const text = `{"method":${JSON.stringify(method)},"params":${logged.payloadJson},"seq":${logged.seq},"emittedAtMs":${logged.createdAtMs}}`;
    for (const listener of this.listeners) listener(notification, text, logged);
  }

  /**
   * Bounded: a log that cannot be written for long must neither eat all
   * memory nor leave clients blind forever. Past MAX_HELD events the oldest
   * are announced without a copy in the log (and reported). Returns whether it let any go.
   */
  private giveUpHolding(): boolean {
    const excess = this.outbox.length - MAX_HELD;
    if (excess <= 0) return false;
    const lastGivenUp = this.outbox[excess - 1]!.logged.seq;
    const unheld = (list: PendingEvent[]) => list.filter((event) => event.seq > lastGivenUp);
    this.durableUnwritten = unheld(this.durableUnwritten);
    this.memoryUnwritten = unheld(this.memoryUnwritten);
    this.onError(`the event log could not be written: ${excess} events announced without a copy in the log`, null);
    return true;
  }

  /** Events after `afterSeq` (durable and in-memory), oldest first. */
  replay(afterSeq: number, limit: number, threadId?: string): ReplayResult {
    this.flush();
    const pages = [this.durable.events.page(afterSeq, limit, threadId), this.memory.events.page(afterSeq, limit, threadId)];
    // Output whose log file is gone cannot be replayed: what follows it would be a replay with a hole.
    const unreadable = Math.min(...pages.map((page) => page.unreadableSeq ?? Infinity));
    const merged = pages.flatMap((page) => page.events).filter((event) => event.seq < unreadable);
    merged.sort((a, b) => a.seq - b.seq);
    const oldestSeq = Math.max(this.durable.events.prunedThrough(), this.memory.events.prunedThrough()) + 1;
    // A seq above the newest handed out comes from another home (or a restored backup).
    const reset = afterSeq < oldestSeq - 1 || afterSeq > this.sequence.last || (unreadable !== Infinity && merged.length === 0);
    return { events: merged.slice(0, limit), reset, oldestSeq };
  }

  /**
   * Drops token deltas after a day (their items are stored whole, enough for
   * any reconnect) and, in the in-memory log of ephemeral threads, everything
   * after 30 days. The durable log's age and size budgets, which keep what
   * open threads and approvals need, are retention's (retention/storage-retention.ts).
   * Numbering never restarts (the reservation is kept apart from the events).
   */
  prune(now = this.now()): number {
    this.flush();
    const day = 24 * 60 * 60 * 1000;
    let removed = 0;
    for (const store of [this.durable, this.memory]) {
      try {
        removed += store.events.prune(now - day, store === this.memory ? now - 30 * day : Number.NEGATIVE_INFINITY);
      } catch (error) {
        this.onError('could not prune the event log', error);
      }
    }
    return removed;
  }

  close(): void {
    this.flush();
    // Whatever still failed is lost with the process (never announced); no retry may outlive the stores.
    this.scheduled?.cancel();
    this.scheduled = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.listeners.clear();
    // Nothing more will be announced: nobody may wait forever.
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
  }
}
