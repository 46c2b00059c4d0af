import type { ThreadItem } from '../../shared/protocol/index.js';
import type { Db } from './database.js';

/**
 * Why an item waits outside the thread order: steer input acknowledged to a
 * client but held until the current model step ends, or the checkpointed
 * text of a reply still streaming.
 */
export type PendingKind = 'steer' | 'streaming';

export interface PendingItem {
  readonly kind: PendingKind;
  readonly threadId: string;
  readonly item: ThreadItem;
}

interface PendingRow {
  kind: PendingKind;
  thread_id: string;
  item: string;
}

/**
 * Items a client has been told about that are not yet in `thread_items`.
 * They are written at once (so a crash cannot lose them) and move into the
 * thread when their place in it is known; a restart moves what is left.
 */
export class PendingItemStore {
  private readonly upsertStmt;
  private readonly deleteStmt;
  private readonly listAllStmt;

  constructor(db: Db) {
    this.upsertStmt = db.prepare(`
      INSERT INTO pending_items (id, thread_id, turn_id, kind, item, created_at_ms)
      VALUES (@id, @thread_id, @turn_id, @kind, @item, @created_at_ms)
      ON CONFLICT(id) DO UPDATE SET item = excluded.item`);
    this.deleteStmt = db.prepare('DELETE FROM pending_items WHERE id = ?');
    // Streamed replies began before any steer still waiting, so they come first.
    this.listAllStmt = db.prepare<[], PendingRow>(
      "SELECT kind, thread_id, item FROM pending_items ORDER BY thread_id, kind = 'steer', rowid",
    );
  }

  /** Writes (or overwrites, same item id) a pending item. */
  save(kind: PendingKind, threadId: string, item: ThreadItem): void {
    this.upsertStmt.run({
      id: item.id,
      thread_id: threadId,
      turn_id: item.turnId,
      kind,
      item: JSON.stringify(item),
      created_at_ms: item.createdAtMs,
    });
  }

  delete(itemId: string): void {
    this.deleteStmt.run(itemId);
  }

  /** Everything pending, per thread: streamed replies first, then steer input in arrival order. */
  all(): PendingItem[] {
    return this.listAllStmt.all().map((row) => ({ kind: row.kind, threadId: row.thread_id, item: JSON.parse(row.item) as ThreadItem }));
  }
}
