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
  private readonly minSeqStmt;
  private readonly insertBatch;
  private readonly pruneStmt;

  constructor(db: Db) {
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
    this.minSeqStmt = db.prepare<[], { min: number | null }>('SELECT MIN(seq) AS min FROM events');
    this.pruneStmt = db.prepare(
      // The newest row always stays, so seq numbering continues after a restart.
      `DELETE FROM events WHERE seq < (SELECT MAX(seq) FROM events) AND (created_at_ms < @all
         OR (created_at_ms < @deltas AND event IN ('item/agentMessage/delta', 'item/reasoning/textDelta')))`,
    );
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
   * whole) and every event older than `allBefore`. Returns rows removed.
   */
  prune(deltasBefore: number, allBefore: number): number {
    return this.pruneStmt.run({ deltas: deltasBefore, all: allBefore }).changes;
  }

  appendBatch(events: readonly PendingEvent[]): void {
    if (events.length > 0) this.insertBatch(events);
  }

  maxSeq(): number {
    return this.maxSeqStmt.get()?.max ?? 0;
  }

  /** The oldest seq still stored, 0 when the table is empty. */
  minSeq(): number {
    return this.minSeqStmt.get()?.min ?? 0;
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
