import fs from 'node:fs';
import { RUNTIME_EVENT_SCHEMA_VERSION, type RuntimeEventEnvelope } from '../../shared/protocol/index.js';
import type { Db } from './database.js';

/** Bytes of a process log that an output delta's text is, exactly (UTF-8). */
export interface OutputRef {
  readonly file: string;
  readonly offset: number;
  readonly length: number;
}

/**
 * An output delta stored by reference: the row keeps `payloadJson` without
 * its `delta` (`storedPayloadJson`) and where the delta's bytes are.
 */
export interface StoredOutput {
  readonly ref: OutputRef;
  readonly storedPayloadJson: string;
}

/** An event ready to be written; its seq was assigned by the event log. */
export interface PendingEvent {
  readonly seq: number;
  readonly event: string;
  readonly kind: string;
  readonly threadId: string | null;
  readonly turnId: string | null;
  readonly itemId: string | null;
  readonly createdAtMs: number;
  /** The notification params, already serialised as JSON (as clients get them). */
  readonly payloadJson: string;
  /** Set when the delta's text is stored once, in its process log, rather than in the row. */
  readonly output?: StoredOutput;
  /** Announced to clients but never written (job output, whose record is the job's log): no replay holds it. */
  readonly unlogged?: true;
}

/** A page of the log; `unreadableSeq` is the first event whose output could not be read back (the page stops before it). */
export interface EventPage {
  readonly events: RuntimeEventEnvelope[];
  readonly unreadableSeq: number | null;
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
  output_path: string | null;
  output_offset: number | null;
  output_length: number | null;
}

const SELECT_ROWS = `SELECT events.*, output_files.path AS output_path FROM events
  LEFT JOIN output_files ON output_files.id = events.output_file`;

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
  private readonly fileIdStmt;
  private readonly insertFileStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(`
      INSERT INTO events (seq, schema_version, event, kind, thread_id, turn_id, item_id, created_at_ms, payload,
                          output_file, output_offset, output_length)
      VALUES (@seq, @schema_version, @event, @kind, @thread_id, @turn_id, @item_id, @created_at_ms, @payload,
              @output_file, @output_offset, @output_length)`);
    this.afterStmt = db.prepare<[number, number], EventRow>(
      `${SELECT_ROWS} WHERE seq > ? ORDER BY seq LIMIT ?`,
    );
    this.afterForThreadStmt = db.prepare<[string, number, number], EventRow>(
      `${SELECT_ROWS} WHERE thread_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    );
    this.fileIdStmt = db.prepare<[string], { id: number }>('SELECT id FROM output_files WHERE path = ?');
    this.insertFileStmt = db.prepare<[string], { id: number }>('INSERT INTO output_files (path) VALUES (?) RETURNING id');
    this.maxSeqStmt = db.prepare<[], { max: number | null }>('SELECT MAX(seq) AS max FROM events');
    const prunable = `created_at_ms < @all
      OR (created_at_ms < @deltas AND event IN ('item/agentMessage/delta', 'item/reasoning/textDelta', 'item/reasoning/summaryTextDelta'))`;
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
          payload: e.output ? e.output.storedPayloadJson : e.payloadJson,
          output_file: e.output ? this.fileId(e.output.ref.file) : null,
          output_offset: e.output?.ref.offset ?? null,
          output_length: e.output?.ref.length ?? null,
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
    return this.page(afterSeq, limit, threadId).events;
  }

  /**
   * Events after `afterSeq`, oldest first, with every output delta stored by
   * reference read back from its file, byte for byte. A delta whose bytes are
   * gone (its log was removed) ends the page there, with its seq.
   */
  page(afterSeq: number, limit: number, threadId?: string): EventPage {
    const rows = threadId
      ? this.afterForThreadStmt.all(threadId, afterSeq, limit)
      : this.afterStmt.all(afterSeq, limit);
    const files = new OutputFileReader();
    const events: RuntimeEventEnvelope[] = [];
    try {
      for (const row of rows) {
        const envelope = toEnvelope(row);
        if (row.output_path !== null) {
          const delta = files.read(row.output_path, row.output_offset ?? 0, row.output_length ?? 0);
          if (delta === null) return { events, unreadableSeq: row.seq };
          (envelope.payload as { delta?: string }).delta = delta;
        }
        events.push(envelope);
      }
    } finally {
      files.close();
    }
    return { events, unreadableSeq: null };
  }

  /** Not cached: an id made inside a transaction that rolls back would outlive its row. */
  private fileId(file: string): number {
    return this.fileIdStmt.get(file)?.id ?? this.insertFileStmt.get(file)!.id;
  }
}

/** Reads stored output back during one page, each file opened once. */
class OutputFileReader {
  private readonly open = new Map<string, number | null>();

  /** The text of those bytes, or null when the file no longer holds all of them. */
  read(file: string, offset: number, length: number): string | null {
    let fd = this.open.get(file);
    if (fd === undefined) {
      try {
        fd = fs.openSync(file, 'r');
      } catch {
        fd = null;
      }
      this.open.set(file, fd);
    }
    if (fd === null) return null;
    const buffer = Buffer.allocUnsafe(length);
    let read = 0;
    try {
      while (read < length) {
        const n = fs.readSync(fd, buffer, read, length - read, offset + read);
        if (n === 0) return null;
        read += n;
      }
    } catch {
      return null;
    }
    return buffer.toString('utf8');
  }

  close(): void {
    for (const fd of this.open.values()) if (fd !== null) fs.closeSync(fd);
    this.open.clear();
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
