import type { Db } from './database.js';

export interface CheckpointRecord {
  readonly threadId: string;
  readonly checkpointId: string;
  readonly reason: string;
  readonly state: unknown;
  readonly createdAtMs: number;
}

interface CheckpointRow {
  thread_id: string;
  checkpoint_id: string;
  reason: string;
  state: string;
  created_at_ms: number;
}

/** Named checkpoints per thread; "latest" is overwritten as the thread moves on. */
export class CheckpointStore {
  private readonly saveStmt;
  private readonly loadStmt;
  private readonly latestStmt;

  constructor(db: Db) {
    this.saveStmt = db.prepare(`
      INSERT INTO checkpoints (thread_id, checkpoint_id, reason, state, created_at_ms)
      VALUES (@thread_id, @checkpoint_id, @reason, @state, @created_at_ms)
      ON CONFLICT(thread_id, checkpoint_id) DO UPDATE SET
        reason = excluded.reason, state = excluded.state, created_at_ms = excluded.created_at_ms`);
    this.loadStmt = db.prepare<[string, string], CheckpointRow>(
      'SELECT * FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?',
    );
    this.latestStmt = db.prepare<[string], CheckpointRow>(
      'SELECT * FROM checkpoints WHERE thread_id = ? ORDER BY created_at_ms DESC LIMIT 1',
    );
  }

  save(record: CheckpointRecord): void {
    this.saveStmt.run({
      thread_id: record.threadId,
      checkpoint_id: record.checkpointId,
      reason: record.reason,
      state: JSON.stringify(record.state ?? null),
      created_at_ms: record.createdAtMs,
    });
  }

  /** Loads a named checkpoint, or the most recent one when no id is given. */
  load(threadId: string, checkpointId?: string): CheckpointRecord | undefined {
    const row = checkpointId ? this.loadStmt.get(threadId, checkpointId) : this.latestStmt.get(threadId);
    return row
      ? {
          threadId: row.thread_id,
          checkpointId: row.checkpoint_id,
          reason: row.reason,
          state: JSON.parse(row.state) as unknown,
          createdAtMs: row.created_at_ms,
        }
      : undefined;
  }
}
