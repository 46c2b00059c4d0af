import type { ThreadGoal, ThreadGoalStatus } from '../../shared/protocol/index.js';
import type { Db } from './database.js';

interface GoalRow {
  thread_id: string;
  goal_id: string;
  objective: string;
  status: string;
  token_budget: number | null;
  tokens_used: number;
  time_used_seconds: number;
  created_at_ms: number;
  updated_at_ms: number;
}

/** One goal per thread (seed 001 ThreadGoal); times in the wire shape are seconds. */
export class GoalStore {
  private readonly upsertStmt;
  private readonly getStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.upsertStmt = db.prepare(`
      INSERT INTO thread_goals (thread_id, goal_id, objective, status, token_budget, tokens_used,
        time_used_seconds, created_at_ms, updated_at_ms)
      VALUES (@thread_id, @goal_id, @objective, @status, @token_budget, @tokens_used,
        @time_used_seconds, @created_at_ms, @updated_at_ms)
      ON CONFLICT(thread_id) DO UPDATE SET goal_id = excluded.goal_id, objective = excluded.objective,
        status = excluded.status, token_budget = excluded.token_budget, tokens_used = excluded.tokens_used,
        time_used_seconds = excluded.time_used_seconds, updated_at_ms = excluded.updated_at_ms`);
    this.getStmt = db.prepare<[string], GoalRow>('SELECT * FROM thread_goals WHERE thread_id = ?');
    this.deleteStmt = db.prepare('DELETE FROM thread_goals WHERE thread_id = ?');
  }

  get(threadId: string): ThreadGoal | null {
    const row = this.getStmt.get(threadId);
    return row ? fromRow(row) : null;
  }

  save(goal: ThreadGoal): void {
    this.upsertStmt.run({
      thread_id: goal.threadId,
      goal_id: goal.goalId,
      objective: goal.objective,
      status: goal.status,
      token_budget: goal.tokenBudget,
      tokens_used: goal.tokensUsed,
      time_used_seconds: goal.timeUsedSeconds,
      created_at_ms: goal.createdAt * 1000,
      updated_at_ms: goal.updatedAt * 1000,
    });
  }

  delete(threadId: string): boolean {
    return this.deleteStmt.run(threadId).changes > 0;
  }
}

function fromRow(row: GoalRow): ThreadGoal {
  return {
    threadId: row.thread_id,
    goalId: row.goal_id,
    objective: row.objective,
    status: row.status as ThreadGoalStatus,
    tokenBudget: row.token_budget,
    tokensUsed: row.tokens_used,
    timeUsedSeconds: row.time_used_seconds,
    createdAt: Math.floor(row.created_at_ms / 1000),
    updatedAt: Math.floor(row.updated_at_ms / 1000),
  };
}
