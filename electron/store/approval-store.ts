import type { Db } from './database.js';

export interface ApprovalRow {
  readonly requestId: string;
  readonly threadId: string;
  readonly turnId: string;
  readonly itemId: string;
  readonly method: string;
  /** The server request's params as JSON. */
  readonly params: string;
  readonly state: 'pending' | 'answered' | 'ended';
  readonly decision: string | null;
}

interface Row {
  request_id: string;
  thread_id: string;
  turn_id: string;
  item_id: string;
  method: string;
  params: string;
  state: ApprovalRow['state'];
  decision: string | null;
}

/** Approval requests sent to clients, kept until answered (or ended by a restart). */
export class ApprovalStore {
  private readonly insertStmt;
  private readonly resolveStmt;
  private readonly getStmt;
  private readonly pendingStmt;
  private readonly endAllStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`
      INSERT INTO pending_approvals (request_id, thread_id, turn_id, item_id, method, params, state, created_at_ms)
      VALUES (@request_id, @thread_id, @turn_id, @item_id, @method, @params, 'pending', @created_at_ms)`);
    this.resolveStmt = db.prepare(
      "UPDATE pending_approvals SET state = @state, decision = @decision, resolved_at_ms = @at WHERE request_id = @request_id AND state = 'pending'",
    );
    this.getStmt = db.prepare<[string], Row>('SELECT * FROM pending_approvals WHERE request_id = ?');
    this.pendingStmt = db.prepare<[], Row>("SELECT * FROM pending_approvals WHERE state = 'pending' ORDER BY created_at_ms, rowid");
    this.endAllStmt = db.prepare(
      "UPDATE pending_approvals SET state = 'ended', decision = @decision, resolved_at_ms = @at WHERE state = 'pending'",
    );
  }

  insert(row: Omit<ApprovalRow, 'state' | 'decision'>, nowMs: number): void {
    this.insertStmt.run({
      request_id: row.requestId,
      thread_id: row.threadId,
      turn_id: row.turnId,
      item_id: row.itemId,
      method: row.method,
      params: row.params,
      created_at_ms: nowMs,
    });
  }

  /** Records the answer (or the end); false when it was no longer pending. */
  resolve(requestId: string, state: 'answered' | 'ended', decision: string, nowMs: number): boolean {
    return this.resolveStmt.run({ request_id: requestId, state, decision, at: nowMs }).changes === 1;
  }

  get(requestId: string): ApprovalRow | null {
    const row = this.getStmt.get(requestId);
    return row ? toRow(row) : null;
  }

  pending(): ApprovalRow[] {
    return this.pendingStmt.all().map(toRow);
  }

  /** At start: the turns that waited are gone, so their approvals end (with `decision` saying why). */
  endAll(decision: string, nowMs: number): number {
    return this.endAllStmt.run({ decision, at: nowMs }).changes;
  }
}

function toRow(row: Row): ApprovalRow {
  return {
    requestId: row.request_id,
    threadId: row.thread_id,
    turnId: row.turn_id,
    itemId: row.item_id,
    method: row.method,
    params: row.params,
    state: row.state,
    decision: row.decision,
  };
}
