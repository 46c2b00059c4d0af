import type { Db } from './database.js';

/**
 * A thread's read receipt as stored: `firstUnreadTurn` is null when read, ''
 * when the person marked the whole thread unread, else the first finished
 * turn whose result they have not seen.
 */
export interface ReadReceipt {
  readonly firstUnreadTurn: string | null;
  readonly revision: string;
}

interface ReceiptRow {
  first_unread_turn: string | null;
  revision: string;
  last_published_turn: string | null;
}

/** What a thread without a receipt reads as: read, with a revision only this thread can match. */
export function initialReceipt(threadId: string): ReadReceipt {
  return { firstUnreadTurn: null, revision: `initial:${threadId}` };
}

/**
 * The thread_read_receipts table (migration 12): one row per thread, written
 * only when a turn's result is announced or the person marks the thread.
 */
export class ReadStateStore {
  private readonly getStmt;
  private readonly publishStmt;
  private readonly markStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], ReceiptRow>('SELECT first_unread_turn, revision, last_published_turn FROM thread_read_receipts WHERE thread_id = ?');
    // The first unread turn stays the earliest one; the revision moves with every new result.
    this.publishStmt = db.prepare(`
      INSERT INTO thread_read_receipts (thread_id, first_unread_turn, revision, last_published_turn)
      VALUES (@threadId, @turnId, @revision, @turnId)
      ON CONFLICT(thread_id) DO UPDATE SET
        first_unread_turn = COALESCE(thread_read_receipts.first_unread_turn, excluded.first_unread_turn),
        revision = excluded.revision,
        last_published_turn = excluded.last_published_turn
      WHERE thread_read_receipts.last_published_turn IS NOT excluded.last_published_turn`);
    this.markStmt = db.prepare(`
      INSERT INTO thread_read_receipts (thread_id, first_unread_turn, revision)
      VALUES (@threadId, @firstUnreadTurn, @revision)
      ON CONFLICT(thread_id) DO UPDATE SET first_unread_turn = excluded.first_unread_turn, revision = excluded.revision`);
  }

  get(threadId: string): ReadReceipt {
    const row = this.getStmt.get(threadId);
    return row ? { firstUnreadTurn: row.first_unread_turn, revision: row.revision } : initialReceipt(threadId);
  }

  /** A finished turn has a result to read; false when this turn was announced already (nothing changed). */
  publish(threadId: string, turnId: string, revision: string): boolean {
    return this.publishStmt.run({ threadId, turnId, revision }).changes > 0;
  }

  /** The person read the thread (`read`) or marked it unread from its start. */
  mark(threadId: string, read: boolean, revision: string): ReadReceipt {
    const firstUnreadTurn = read ? null : '';
    this.markStmt.run({ threadId, firstUnreadTurn, revision });
    return { firstUnreadTurn, revision };
  }

  /** Dropped turns cannot be unread: a receipt pointing into them reads as read again. */
  forgetTurns(threadId: string, turnIds: readonly string[], revision: string): ReadReceipt | null {
    const current = this.getStmt.get(threadId);
    if (!current?.first_unread_turn || !turnIds.includes(current.first_unread_turn)) return null;
    return this.mark(threadId, true, revision);
  }
}
