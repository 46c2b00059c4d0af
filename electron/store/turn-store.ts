import type { TokenUsageBreakdown, TurnFailure, TurnStatus } from '../../shared/protocol/index.js';
import type { Db } from './database.js';

export interface TurnRecord {
  id: string;
  threadId: string;
  ordinal: number;
  status: TurnStatus;
  model: string | null;
  error: TurnFailure | null;
  usage: TokenUsageBreakdown | null;
  startedAtMs: number | null;
  completedAtMs: number | null;
}

interface TurnRow {
  id: string;
  thread_id: string;
  ordinal: number;
  status: string;
  model: string | null;
  error: string | null;
  usage: string | null;
  started_at_ms: number | null;
  completed_at_ms: number | null;
}

/** Turns of a thread, in order. */
export class TurnStore {
  private readonly upsertStmt;
  private readonly listStmt;
  private readonly getStmt;
  private readonly nextOrdinalStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.upsertStmt = db.prepare(`
      INSERT INTO turns (id, thread_id, ordinal, status, model, error, usage, started_at_ms, completed_at_ms)
      VALUES (@id, @thread_id, @ordinal, @status, @model, @error, @usage, @started_at_ms, @completed_at_ms)
      ON CONFLICT(id) DO UPDATE SET status = excluded.status, model = excluded.model, error = excluded.error,
        usage = excluded.usage, started_at_ms = excluded.started_at_ms, completed_at_ms = excluded.completed_at_ms`);
    this.listStmt = db.prepare<[string], TurnRow>('SELECT * FROM turns WHERE thread_id = ? ORDER BY ordinal');
    this.getStmt = db.prepare<[string], TurnRow>('SELECT * FROM turns WHERE id = ?');
    this.nextOrdinalStmt = db.prepare<[string], { next: number }>(
      'SELECT COALESCE(MAX(ordinal), 0) + 1 AS next FROM turns WHERE thread_id = ?',
    );
    this.deleteStmt = db.prepare('DELETE FROM turns WHERE id = ?');
  }

  nextOrdinal(threadId: string): number {
    return this.nextOrdinalStmt.get(threadId)!.next;
  }

  upsert(turn: TurnRecord): void {
    this.upsertStmt.run({
      id: turn.id,
      thread_id: turn.threadId,
      ordinal: turn.ordinal,
      status: turn.status,
      model: turn.model,
      error: turn.error ? JSON.stringify(turn.error) : null,
      usage: turn.usage ? JSON.stringify(turn.usage) : null,
      started_at_ms: turn.startedAtMs,
      completed_at_ms: turn.completedAtMs,
    });
  }

  get(id: string): TurnRecord | undefined {
    const row = this.getStmt.get(id);
    return row ? fromRow(row) : undefined;
  }

  list(threadId: string): TurnRecord[] {
    return this.listStmt.all(threadId).map(fromRow);
  }

  /** Deletes a turn; its items go with it (ON DELETE CASCADE). */
  delete(id: string): void {
    this.deleteStmt.run(id);
  }
}

function fromRow(row: TurnRow): TurnRecord {
  return {
    id: row.id,
    threadId: row.thread_id,
    ordinal: row.ordinal,
    status: row.status as TurnStatus,
    model: row.model,
    error: row.error ? (JSON.parse(row.error) as TurnFailure) : null,
    usage: row.usage ? storedUsage(row.usage) : null,
    startedAtMs: row.started_at_ms,
    completedAtMs: row.completed_at_ms,
  };
}

/** Usage stored before Codex's `cacheWriteInputTokens` was kept reported no cache writes. */
function storedUsage(json: string): TokenUsageBreakdown {
  const usage = JSON.parse(json) as Omit<TokenUsageBreakdown, 'cacheWriteInputTokens'> & { cacheWriteInputTokens?: number };
  return { ...usage, cacheWriteInputTokens: usage.cacheWriteInputTokens ?? 0 };
}
