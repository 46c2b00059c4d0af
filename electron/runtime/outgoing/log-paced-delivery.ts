import type { AnyNotification, RuntimeEventEnvelope } from '../../../shared/protocol/index.js';

/** What a connection needs so it can be served from the log (ClientConnection's part of it). */
export interface PaceableConnection {
  readonly isOpen: boolean;
  readonly unsentBytes: number;
  sendNotification(method: string, text: string): void;
  onceDrained(callback: () => void): void;
  /**
   * Ends a connection that fell behind further than the log reaches; a client
   * reconnects, replays from its last seq and is told `reset` (reload). Absent:
   * the carrier cannot be paced from the log and gets every event live.
   */
  endBehindPrunedLog?(reason: string): void;
}

/** The event log as the sender reads it (EventLog; outgoing sits below it in the core's layers). */
export interface EventSource {
  replay(afterSeq: number, limit: number): { readonly events: readonly RuntimeEventEnvelope[]; readonly reset: boolean; readonly oldestSeq: number };
  subscribe(listener: (notification: AnyNotification, text: string, logged: AnnouncedEvent) => void): () => void;
}

/** What the sender needs of an announced event as the log holds it. */
export interface AnnouncedEvent {
  readonly seq: number;
  /** Announced but never written (job output, recorded in the job's log): no replay holds it. */
  readonly unlogged?: true;
}

export interface PacingOptions {
  /** A connection whose carrier holds more than this unsent stops getting live events and is served from the log. */
  readonly behindBytes: number;
  /** Events read from the log at once while pacing (one page is in memory at a time). */
  readonly pageSize: number;
}

const RETRY_MS = 1000;
/**
 * While paced, a page is written only when the carrier holds at most this: above it, a write has
 * filled the carrier past its own mark (16 KB for a socket or pipe in Node 20, 64 KB from Node 22),
 * so its `drain` is sure to come.
 */
const PAGE_WHEN_UNSENT_AT_MOST = 64 * 1024;

export const DEFAULT_PACING: PacingOptions = { behindBytes: 1024 * 1024, pageSize: 100 };

/**
 * Delivers the log's events to one connection as a cursor on the log
 * (`lastSent`). Live, each announced event is written at once; once the
 * carrier holds more than `behindBytes` unsent (a client reading slower than
 * events come), the connection is **paced**: live events are left in the log,
 * and pages read after `lastSent` are written each time the carrier has
 * drained, until it has caught up and goes live again. The process never
 * holds more than the threshold plus a page for it, and nothing is skipped or
 * reordered. It is ended only when what it has not read was pruned (`reset`
 * on its reconnect). Unlogged events (job output, recorded in the job's log)
 * are written as they come: no replay could give them later.
 */
export class LogPacedDelivery {
  private mode: 'live' | 'paced' | 'ended' = 'live';
  /** The newest logged event written to the client (0: none yet, every announced event is new to it). */
  private lastSent = 0;

  constructor(
    private readonly connection: PaceableConnection,
    private readonly events: EventSource,
    private readonly options: PacingOptions = DEFAULT_PACING,
  ) {}

  get paced(): boolean {
    return this.mode === 'paced';
  }

  /** One announced event (in seq order). */
  deliver(notification: AnyNotification, text: string, logged: AnnouncedEvent): void {
    if (this.mode === 'ended') return;
    if (logged.unlogged || !this.connection.endBehindPrunedLog) {
      this.connection.sendNotification(notification.method, text);
      return;
    }
    if (this.mode === 'paced' || logged.seq <= this.lastSent) return; // the pump reads it from the log
    if (this.connection.unsentBytes > this.options.behindBytes) {
      // Everything announced before this event has reached the carrier: the log serves the rest.
      this.lastSent = logged.seq - 1;
      this.mode = 'paced';
      this.waitThenPump();
      return;
    }
    this.lastSent = logged.seq;
    this.connection.sendNotification(notification.method, text);
  }

  /** The connection is gone: nothing more is read for it. */
  end(): void {
    this.mode = 'ended';
  }

  private waitThenPump(): void {
    this.connection.onceDrained(() => this.pump());
  }

  /** Writes pages from the log while the carrier takes them; goes live once a page comes back short. */
  private pump(): void {
    while (this.mode === 'paced') {
      if (!this.connection.isOpen) {
        this.end();
        return;
      }
      // A drain fires only after a write filled the carrier past its own mark: wait only when that is sure.
      if (this.connection.unsentBytes > PAGE_WHEN_UNSENT_AT_MOST) {
        this.waitThenPump();
        return;
      }
      let page;
      try {
        page = this.events.replay(this.lastSent, this.options.pageSize);
      } catch {
        // The log cannot be read now (a locked or failing store): try again shortly.
        setTimeout(() => this.pump(), RETRY_MS).unref();
        return;
      }
      if (page.reset) {
        this.end();
        this.connection.endBehindPrunedLog?.(
          `reset: the log no longer holds the events after seq ${this.lastSent} (oldest ${page.oldestSeq}); reconnect and reload`,
        );
        return;
      }
      for (const envelope of page.events) {
        this.lastSent = envelope.seq;
        this.connection.sendNotification(envelope.event, textOf(envelope));
      }
      // Caught up: what is announced from now on goes out live (the replay flushed everything before it).
      if (page.events.length < this.options.pageSize) this.mode = 'live';
    }
  }
}

/** The same text a live client gets for this event (EventLog.announce). */
function textOf(envelope: RuntimeEventEnvelope): string {
  const emittedAtMs = Date.parse(envelope.timestamp);
  return `{"method":${JSON.stringify(envelope.event)},"params":${JSON.stringify(envelope.payload ?? null)},"seq":${envelope.seq},"emittedAtMs":${emittedAtMs}}`;
}
