import { RUNTIME_EVENT_SCHEMA_VERSION, type RuntimeEventEnvelope } from '../../shared/protocol/index.js';
import type { Db } from './database.js';

/** An event ready to be written; its seq was assigned by the event log. */
export interface PendingEvent {
  readonly seq: number;
  readonly event: string;
  readonly kind: string;
  readonly threadId: string | null;
  readonly turnId: string | null;
  readonly itemId: string | null;
  readonly createdAtMs: number;
  /** The notification params, already serialised as JSON. */
  readonly payloadJson: string;
}

interface EventRow {
  seq: number;
  schema_version: number;
  event: string;
  kind: string;
  thread_id: string | null;
  turn_id: string | null;
  item_id: string | null;
  created_at_ms: number;
  payload: string;
}

/** The append-only event table. Writes come in batches, one transaction each. */
export class EventStore {
  private readonly insertStmt;
  private readonly afterStmt;
  private readonly afterForThreadStmt;
  private readonly maxSeqStmt;
  private readonly insertBatch;
  private readonly pruneStmt;
  private readonly prunableMaxStmt;
  private readonly sequenceStmt;
  private readonly reserveStmt;
  private readonly markPrunedStmt;
  private readonly pruneTransaction;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(`
      INSERT INTO events (seq, schema_version, event, kind, thread_id, turn_id, item_id, created_at_ms, payload)
      VALUES (@seq, @schema_version, @event, @kind, @thread_id, @turn_id, @item_id, @created_at_ms, @payload)`);
    this.afterStmt = db.prepare<[number, number], EventRow>(
      'SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?',
    );
    this.afterForThreadStmt = db.prepare<[string, number, number], EventRow>(
      'SELECT * FROM events WHERE thread_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    this.maxSeqStmt = db.prepare<[], { max: number | null }>('SELECT MAX(seq) AS max FROM events');
    const prunable = `created_at_ms < @all
      OR (created_at_ms < @deltas AND event IN ('item/agentMessage/delta', 'item/reasoning/textDelta'))`;
    this.pruneStmt = db.prepare(`DELETE FROM events WHERE ${prunable}`);
    this.prunableMaxStmt = db.prepare<{ all: number; deltas: number }, { max: number | null }>(
      `SELECT MAX(seq) AS max FROM events WHERE ${prunable}`,
    );
    this.sequenceStmt = db.prepare<[], { reserved: number; pruned: number }>(
      'SELECT reserved_through_seq AS reserved, pruned_through_seq AS pruned FROM event_sequence WHERE id = 1',
    );
    this.reserveStmt = db.prepare(
      'UPDATE event_sequence SET reserved_through_seq = MAX(reserved_through_seq, ?) WHERE id = 1',
    );
    this.markPrunedStmt = db.prepare(
      'UPDATE event_sequence SET pruned_through_seq = MAX(pruned_through_seq, ?) WHERE id = 1',
    );
    this.pruneTransaction = db.transaction((deltas: number, all: number): number => {
      const newestPruned = this.prunableMaxStmt.get({ deltas, all })?.max ?? null;
      if (newestPruned === null) return 0;
      this.markPrunedStmt.run(newestPruned);
      return this.pruneStmt.run({ deltas, all }).changes;
    });
    this.insertBatch = db.transaction((events: readonly PendingEvent[]) => {
      for (const e of events) {
        this.insertStmt.run({
          seq: e.seq,
          schema_version: RUNTIME_EVENT_SCHEMA_VERSION,
          event: e.event,
          kind: e.kind,
          thread_id: e.threadId,
          turn_id: e.turnId,
          item_id: e.itemId,
          created_at_ms: e.createdAtMs,
          payload: e.payloadJson,
        });
      }
    });
  }

  /**
   * Drops token deltas older than `deltasBefore` (their items are stored
   * whole) and every event older than `allBefore`, and records the newest seq
   * dropped, so replay from before it is known to be incomplete. Returns rows removed.
   */
  prune(deltasBefore: number, allBefore: number): number {
    return this.pruneTransaction(deltasBefore, allBefore);
  }

  /** Every seq up to this may have been handed out already; numbering continues above it. */
  reservedThrough(): number {
    return Math.max(this.sequenceStmt.get()?.reserved ?? 0, this.maxSeq());
  }

  /** Events up to this seq may have been pruned. */
  prunedThrough(): number {
    return this.sequenceStmt.get()?.pruned ?? 0;
  }

  /**
   * Records that seq values up to `seq` may be handed out. Committed with a
   * full sync (this is rare: once per block of seqs), so neither a killed
   * process nor a power cut lets a restart hand out a seq twice.
   */
  reserveThrough(seq: number): void {
    // Inside a transaction SQLite cannot change the sync level; the write commits with it.
    if (this.db.inTransaction) {
      this.reserveStmt.run(seq);
      return;
    }
    const previous = this.db.pragma('synchronous', { simple: true }) as number;
    this.db.pragma('synchronous = FULL');
    try {
      this.reserveStmt.run(seq);
    } finally {
      this.db.pragma(`synchronous = ${previous}`);
    }
  }

  appendBatch(events: readonly PendingEvent[]): void {
    if (events.length > 0) this.insertBatch(events);
  }

  maxSeq(): number {
    return this.maxSeqStmt.get()?.max ?? 0;
  }

  /** Events after `afterSeq`, oldest first, optionally for one thread. */
  listAfter(afterSeq: number, limit: number, threadId?: string): RuntimeEventEnvelope[] {
    const rows = threadId
      ? this.afterForThreadStmt.all(threadId, afterSeq, limit)
      : this.afterStmt.all(afterSeq, limit);
    return rows.map(toEnvelope);
  }
}

function toEnvelope(row: EventRow): RuntimeEventEnvelope {
  return {
    schemaVersion: row.schema_version,
    seq: row.seq,
    event: row.event,
    kind: row.kind,
    threadId: row.thread_id,
    turnId: row.turn_id,
    itemId: row.item_id,
    timestamp: new Date(row.created_at_ms).toISOString(),
    payload: JSON.parse(row.payload) as unknown,
  };
}
