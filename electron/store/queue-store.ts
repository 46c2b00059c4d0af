import { withTextElements, type QueuedTurnStartParams, type TurnFailure } from '../../shared/protocol/index.js';
import type { Db } from './database.js';

export type QueuedTurnState = 'pending' | 'dispatching' | 'failed';

export interface QueuedTurnRecord {
  readonly id: string;
  readonly threadId: string;
  readonly turnStartParams: QueuedTurnStartParams;
  readonly clientUserMessageId: string | null;
  readonly clientMetadata: Record<string, string> | null;
  readonly queueOrder: number;
  readonly state: QueuedTurnState;
  readonly dispatchTurnId: string | null;
  readonly failure: TurnFailure | null;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

export interface NewQueuedTurn {
  readonly id: string;
  readonly threadId: string;
  readonly turnStartParams: QueuedTurnStartParams;
  readonly clientUserMessageId: string | null;
  readonly clientMetadata: Record<string, string> | null;
  readonly nowMs: number;
}

interface QueuedTurnRow {
  queued_turn_id: string;
  thread_id: string;
  turn_start_params: string;
  client_user_message_id: string | null;
  client_metadata: string | null;
  queue_order: number;
  state: string;
  dispatch_turn_id: string | null;
  failure: string | null;
  created_at_ms: number;
  updated_at_ms: number;
}

/** Thrown when a reorder does not name every visible row exactly once; nothing changes. */
export class QueueReorderMismatchError extends Error {
  constructor() {
    super('queue reorder must include every visible queued turn exactly once');
    this.name = 'QueueReorderMismatchError';
  }
}

const VISIBLE = `state IN ('pending', 'failed')`;

/**
 * Seed 003's queued-turn table. Pending and failed rows are visible; a row
 * being dispatched is hidden and can be neither deleted nor reordered. Every
 * state change is one statement (or one transaction), so a claim has a single
 * winner and a crash leaves rows whole.
 */
export class QueueStore {
  private readonly appendStmt;
  private readonly pageStmt;
  private readonly getStmt;
  private readonly deleteStmt;
  private readonly visibleIdsStmt;
  private readonly setOrderStmt;
  private readonly claimHeadStmt;
  private readonly claimOneStmt;
  private readonly setTurnIdStmt;
  private readonly removeDispatchingStmt;
  private readonly markFailedStmt;
  private readonly recoverStmt;
  private readonly updateParamsStmt;
  private readonly waitingThreadsStmt;
  private readonly visibleCountsStmt;

  constructor(private readonly db: Db) {
    this.appendStmt = db.prepare<[string, string, string, string | null, string | null, number, number, string], QueuedTurnRow>(`
      INSERT INTO thread_queued_turns (queued_turn_id, thread_id, turn_start_params, client_user_message_id,
        client_metadata, queue_order, state, created_at_ms, updated_at_ms)
      SELECT ?, ?, ?, ?, ?, COALESCE(MAX(queue_order), -1) + 1, 'pending', ?, ?
      FROM thread_queued_turns WHERE thread_id = ?
      RETURNING *`);
    this.pageStmt = db.prepare<[string, number, number], QueuedTurnRow>(
      `SELECT * FROM thread_queued_turns WHERE thread_id = ? AND ${VISIBLE} ORDER BY queue_order ASC LIMIT ? OFFSET ?`,
    );
    this.getStmt = db.prepare<[string, string], QueuedTurnRow>(
      'SELECT * FROM thread_queued_turns WHERE thread_id = ? AND queued_turn_id = ?',
    );
    this.deleteStmt = db.prepare<[string, string]>(
      `DELETE FROM thread_queued_turns WHERE thread_id = ? AND queued_turn_id = ? AND ${VISIBLE}`,
    );
    this.visibleIdsStmt = db.prepare<[string], { queued_turn_id: string; queue_order: number }>(
      `SELECT queued_turn_id, queue_order FROM thread_queued_turns WHERE thread_id = ? AND ${VISIBLE} ORDER BY queue_order ASC`,
    );
    this.setOrderStmt = db.prepare<[number, number, string, string]>(
      `UPDATE thread_queued_turns SET queue_order = ?, updated_at_ms = ? WHERE thread_id = ? AND queued_turn_id = ? AND ${VISIBLE}`,
    );
    // The head of the visible queue is claimed only when it is pending (a failed
    // head blocks FIFO) and no other row of the thread is being dispatched.
    this.claimHeadStmt = db.prepare<[number, string], QueuedTurnRow>(`
      UPDATE thread_queued_turns SET state = 'dispatching', updated_at_ms = ?
      WHERE queued_turn_id = (
        SELECT head.queued_turn_id FROM thread_queued_turns AS head
        WHERE head.thread_id = ? AND head.${VISIBLE}
          AND NOT EXISTS (SELECT 1 FROM thread_queued_turns AS active
                          WHERE active.thread_id = head.thread_id AND active.state = 'dispatching')
        ORDER BY head.queue_order ASC LIMIT 1)
      AND state = 'pending'
      RETURNING *`);
    // An explicit start (thread/queue/start) may pick any visible row, failed included.
    this.claimOneStmt = db.prepare<[number, string, string], QueuedTurnRow>(`
      UPDATE thread_queued_turns SET state = 'dispatching', updated_at_ms = ?
      WHERE thread_id = ? AND queued_turn_id = ? AND ${VISIBLE}
        AND NOT EXISTS (SELECT 1 FROM thread_queued_turns AS active
                        WHERE active.thread_id = thread_queued_turns.thread_id AND active.state = 'dispatching')
      RETURNING *`);
    this.setTurnIdStmt = db.prepare<[string, number, string]>(
      `UPDATE thread_queued_turns SET dispatch_turn_id = ?, updated_at_ms = ? WHERE queued_turn_id = ? AND state = 'dispatching'`,
    );
    this.removeDispatchingStmt = db.prepare<[string, string]>(
      `DELETE FROM thread_queued_turns WHERE thread_id = ? AND state = 'dispatching' AND dispatch_turn_id = ?`,
    );
    this.markFailedStmt = db.prepare<[string, number, string]>(
      `UPDATE thread_queued_turns SET state = 'failed', failure = ?, updated_at_ms = ? WHERE queued_turn_id = ? AND state = 'dispatching'`,
    );
    this.recoverStmt = db.prepare<[string, number], { thread_id: string }>(
      `UPDATE thread_queued_turns SET state = 'failed', failure = ?, updated_at_ms = ? WHERE state = 'dispatching' RETURNING thread_id`,
    );
    this.updateParamsStmt = db.prepare<[string, string | null, number, string, string], QueuedTurnRow>(
      `UPDATE thread_queued_turns SET turn_start_params = ?, client_metadata = ?, updated_at_ms = ?
       WHERE thread_id = ? AND queued_turn_id = ? AND ${VISIBLE} RETURNING *`,
    );
    this.waitingThreadsStmt = db.prepare<[], { thread_id: string }>(
      `SELECT DISTINCT thread_id FROM thread_queued_turns WHERE state = 'pending' ORDER BY thread_id`,
    );
    this.visibleCountsStmt = db.prepare<[], { thread_id: string; visible: number }>(
      `SELECT thread_id, COUNT(*) AS visible FROM thread_queued_turns WHERE ${VISIBLE} GROUP BY thread_id`,
    );
  }

  /** Threads with at least one pending row. */
  threadsWithPending(): string[] {
    return this.waitingThreadsStmt.all().map((row) => row.thread_id);
  }

  /** Visible rows per thread, in one read; threads with none are absent. */
  visibleCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const row of this.visibleCountsStmt.all()) counts[row.thread_id] = row.visible;
    return counts;
  }

  append(row: NewQueuedTurn): QueuedTurnRecord {
    const inserted = this.appendStmt.get(
      row.id,
      row.threadId,
      JSON.stringify(row.turnStartParams),
      row.clientUserMessageId,
      row.clientMetadata ? JSON.stringify(row.clientMetadata) : null,
      row.nowMs,
      row.nowMs,
      row.threadId,
    );
    return fromRow(inserted!);
  }

  /** Visible rows (pending and failed) in queue order. */
  listVisible(threadId: string, offset = 0, limit = -1): QueuedTurnRecord[] {
    return this.pageStmt.all(threadId, limit, offset).map(fromRow);
  }

  get(threadId: string, queuedTurnId: string): QueuedTurnRecord | null {
    const row = this.getStmt.get(threadId, queuedTurnId);
    return row ? fromRow(row) : null;
  }

  /** Removes a visible row; a row being dispatched is never removed. */
  delete(threadId: string, queuedTurnId: string): boolean {
    return this.deleteStmt.run(threadId, queuedTurnId).changes > 0;
  }

  /** Replaces the visible order, keeping the slots the visible rows held. */
  reorder(threadId: string, orderedIds: readonly string[], nowMs: number): QueuedTurnRecord[] {
    return this.db.transaction(() => {
      const visible = this.visibleIdsStmt.all(threadId);
      const expected = visible.map((r) => r.queued_turn_id).sort();
      const requested = [...orderedIds].sort();
      if (expected.length !== requested.length || expected.some((id, i) => id !== requested[i])) {
        throw new QueueReorderMismatchError();
      }
      // Two passes through negative slots so UNIQUE(thread_id, queue_order) holds at every step.
      orderedIds.forEach((id, i) => this.setOrderStmt.run(-(i + 1), nowMs, threadId, id));
      orderedIds.forEach((id, i) => this.setOrderStmt.run(visible[i]!.queue_order, nowMs, threadId, id));
      return this.listVisible(threadId);
    })();
  }

  /** Claims the head of the queue for dispatch; null when it is empty, failed, or another claim is live. */
  claimHead(threadId: string, nowMs: number): QueuedTurnRecord | null {
    const row = this.claimHeadStmt.get(nowMs, threadId);
    return row ? fromRow(row) : null;
  }

  /** Claims one named visible row for dispatch; null when it is not visible or another claim is live. */
  claim(threadId: string, queuedTurnId: string, nowMs: number): QueuedTurnRecord | null {
    const row = this.claimOneStmt.get(nowMs, threadId, queuedTurnId);
    return row ? fromRow(row) : null;
  }

  /** Records which turn a claimed row started; false when the claim is gone. */
  setDispatchTurnId(queuedTurnId: string, turnId: string, nowMs: number): boolean {
    return this.setTurnIdStmt.run(turnId, nowMs, queuedTurnId).changes > 0;
  }

  /** Clears the dispatch claim whose started turn is `turnId`, and only that one. */
  removeDispatching(threadId: string, turnId: string): boolean {
    return this.removeDispatchingStmt.run(threadId, turnId).changes > 0;
  }

  /** A claimed row whose turn could not start becomes visible again as failed. */
  markFailed(queuedTurnId: string, failure: TurnFailure, nowMs: number): boolean {
    return this.markFailedStmt.run(JSON.stringify(failure), nowMs, queuedTurnId).changes > 0;
  }

  /** After a restart, every row left dispatching becomes failed; returns the threads touched. */
  recoverDispatching(failure: TurnFailure, nowMs: number): string[] {
    const rows = this.recoverStmt.all(JSON.stringify(failure), nowMs);
    return [...new Set(rows.map((r) => r.thread_id))];
  }

  /** Replaces a visible row's turn parameters (and metadata); null when the row is not visible. */
  updateParams(
    threadId: string,
    queuedTurnId: string,
    params: QueuedTurnStartParams,
    clientMetadata: Record<string, string> | null,
    nowMs: number,
  ): QueuedTurnRecord | null {
    const row = this.updateParamsStmt.get(
      JSON.stringify(params),
      clientMetadata ? JSON.stringify(clientMetadata) : null,
      nowMs,
      threadId,
      queuedTurnId,
    );
    return row ? fromRow(row) : null;
  }
}

function fromRow(row: QueuedTurnRow): QueuedTurnRecord {
  return {
    id: row.queued_turn_id,
    threadId: row.thread_id,
    turnStartParams: storedTurnStartParams(row.turn_start_params),
    clientUserMessageId: row.client_user_message_id,
    clientMetadata: row.client_metadata ? (JSON.parse(row.client_metadata) as Record<string, string>) : null,
    queueOrder: row.queue_order,
    state: row.state as QueuedTurnState,
    dispatchTurnId: row.dispatch_turn_id,
    failure: row.failure ? (JSON.parse(row.failure) as TurnFailure) : null,
    createdAtMs: row.created_at_ms,
    updatedAtMs: row.updated_at_ms,
  };
}

/** Params stored before `text_elements` was kept: each text input gets Codex's default. */
function storedTurnStartParams(json: string): QueuedTurnStartParams {
  const params = JSON.parse(json) as QueuedTurnStartParams;
  return { ...params, input: params.input.map(withTextElements) };
}
