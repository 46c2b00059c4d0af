import type { DynamicToolSpec } from '../../shared/protocol/index.js';
import type { Db } from './database.js';

/** The client-side tools each thread was started with; they outlive a restart like the thread. */
export class DynamicToolStore {
  private readonly saveStmt;
  private readonly getStmt;

  constructor(db: Db) {
    this.saveStmt = db.prepare(
      'INSERT OR REPLACE INTO thread_dynamic_tools (thread_id, tools, created_at_ms) VALUES (?, ?, ?)',
    );
    this.getStmt = db.prepare<[string], { tools: string }>('SELECT tools FROM thread_dynamic_tools WHERE thread_id = ?');
  }

  save(threadId: string, tools: readonly DynamicToolSpec[], nowMs: number): void {
    this.saveStmt.run(threadId, JSON.stringify(tools), nowMs);
  }

  get(threadId: string): DynamicToolSpec[] {
    const row = this.getStmt.get(threadId);
    return row ? (JSON.parse(row.tools) as DynamicToolSpec[]) : [];
  }
}
