import {
  QUEUE_LIST_DEFAULT_LIMIT,
  QUEUE_LIST_MAX_LIMIT,
  parseParams,
  RpcError,
  TurnStartParams,
  type HandlerParamsOf,
  type ResultOf,
  type Turn,
} from '../../../shared/protocol/index.js';
import { QueueReorderMismatchError, type QueuedTurnRecord } from '../../store/queue-store.js';
import type { StateStore } from '../../store/state-store.js';
import type { EventLog } from '../event-log.js';
import type { ThreadManager } from '../thread-manager.js';
import { requireAbsolute } from '../working-directory.js';
import { INTERRUPTED_DISPATCH_MESSAGE, queueError, toWireQueuedTurn } from './queued-turn-mapper.js';

/** The part of the turn engine the queue drives. */
export interface TurnStarter {
  start(params: HandlerParamsOf<'turn/start'>): { turn: Turn };
  activeTurnId(threadId: string): string | null;
}

export interface TurnQueueDeps {
  readonly threads: ThreadManager;
  /** Queued turns are durable: they live in the state file only. */
  readonly store: StateStore;
  readonly events: EventLog;
  readonly turns: TurnStarter;
  readonly newId: () => string;
  readonly now: () => number;
  readonly onInternalError?: (message: string, error: unknown) => void;
}

/**
 * Seed 003's thread queue: future turn/start requests persisted per thread and
 * started one at a time when the thread is idle, in the visible order. A row
 * is claimed (hidden) while its turn starts and removed once it has; a row
 * whose turn cannot start becomes failed and blocks the rows behind it until
 * it is deleted.
 */
export class TurnQueue {
  private stopped = false;

  constructor(private readonly deps: TurnQueueDeps) {}

  add(params: HandlerParamsOf<'thread/queue/add'>): ResultOf<'thread/queue/add'> {
    const turnStartParams = params.turnStartParams ?? { threadId: params.threadId, input: params.input! };
    if (turnStartParams.threadId !== params.threadId) {
      throw RpcError.invalidRequest('`threadId` must match `turnStartParams.threadId`');
    }
    this.requireQueueable(params.threadId, 'thread/queue/add');
    // A relative folder can never work; one that is missing now may exist by the time the row starts.
    if (turnStartParams.cwd) requireAbsolute('thread/queue/add', turnStartParams.cwd);
    const record = this.changing(params.threadId, () =>
      this.deps.store.queue.append({
        id: this.deps.newId(),
        threadId: params.threadId,
        turnStartParams,
        clientUserMessageId: params.clientUserMessageId ?? null,
        clientMetadata: nonEmpty(params.responsesapiClientMetadata),
        nowMs: this.deps.now(),
      }),
    );
    const queued = toWireQueuedTurn(record);
    this.drain(params.threadId);
    return params.turnStartParams ? { queuedSubmission: queued, queuedTurn: queued } : { queuedSubmission: queued };
  }

  /** Seed 003: a thread that does not exist has nothing queued (an empty page, not an error). */
  list(params: HandlerParamsOf<'thread/queue/list'>): ResultOf<'thread/queue/list'> {
    const cursor = params.cursor ?? null;
    if (cursor !== null && !/^\d+$/.test(cursor)) throw RpcError.invalidRequest(`invalid cursor: ${cursor}`);
    const start = cursor === null ? 0 : Number(cursor);
    const limit = Math.min(Math.max(params.limit ?? QUEUE_LIST_DEFAULT_LIMIT, 1), QUEUE_LIST_MAX_LIMIT);
    const rows = this.deps.store.queue.listVisible(params.threadId, start, limit + 1);
    return {
      data: rows.slice(0, limit).map(toWireQueuedTurn),
      nextCursor: rows.length > limit ? String(start + limit) : null,
    };
  }

  /** Every thread's visible queue length in one query (the sidebar's counts, however many threads). */
  counts(): ResultOf<'thread/queue/counts'> {
    return { counts: this.deps.store.queue.visibleCounts() };
  }

  delete(params: HandlerParamsOf<'thread/queue/delete'>): ResultOf<'thread/queue/delete'> {
    this.deps.threads.requireUnarchived(params.threadId, 'thread/queue/delete');
    const id = (params.queuedTurnId ?? params.queuedSubmissionId)!;
    const deleted = this.changing(params.threadId, () => this.deps.store.queue.delete(params.threadId, id));
    if (deleted) this.drain(params.threadId);
    return { deleted };
  }

  reorder(params: HandlerParamsOf<'thread/queue/reorder'>): ResultOf<'thread/queue/reorder'> {
    this.deps.threads.requireUnarchived(params.threadId, 'thread/queue/reorder');
    const ids = (params.queuedTurnIds ?? params.queuedSubmissionIds)!;
    let records: QueuedTurnRecord[];
    try {
      records = this.deps.events.commit(this.deps.store, () => {
        const reordered = this.deps.store.queue.reorder(params.threadId, ids, this.deps.now());
        this.publishChanged(params.threadId, reordered.map(toWireQueuedTurn));
        return reordered;
      });
    } catch (error) {
      if (error instanceof QueueReorderMismatchError) {
        throw RpcError.because('queue.orderChanged', `failed to reorder queued turns: ${error.message}`, {
          visibleQueuedTurnIds: this.deps.store.queue.listVisible(params.threadId).map((r) => r.id),
        });
      }
      throw error;
    }
    this.drain(params.threadId);
    return { queuedTurns: records.map(toWireQueuedTurn) };
  }

  update(params: HandlerParamsOf<'thread/queue/update'>): ResultOf<'thread/queue/update'> {
    this.deps.threads.requireUnarchived(params.threadId, 'thread/queue/update');
    const id = (params.queuedSubmissionId ?? params.queuedTurnId)!;
    const existing = this.requireVisible(params.threadId, id);
    const metadata = nonEmpty(params.responsesapiClientMetadata) ?? existing.clientMetadata;
    const updated = this.changing(params.threadId, () =>
      this.deps.store.queue.updateParams(params.threadId, id, { ...existing.turnStartParams, input: params.input }, metadata, this.deps.now()),
    );
    if (!updated) throw startedError(id);
    return { queuedSubmission: toWireQueuedTurn(updated) };
  }

  /** Codex 0.169's "send now": starts one queued row (failed ones too) on an idle thread. */
  start(params: HandlerParamsOf<'thread/queue/start'>): ResultOf<'thread/queue/start'> {
    this.requireQueueable(params.threadId, 'thread/queue/start');
    const running = this.deps.turns.activeTurnId(params.threadId);
    if (running) {
      throw RpcError.because(
        'thread.busy',
        `thread ${params.threadId} already has a running turn (${running}); queued turns start when it ends`,
        { activeTurnId: running },
      );
    }
    const id = params.queuedSubmissionId ?? this.deps.store.queue.listVisible(params.threadId, 0, 1)[0]?.id;
    if (!id) throw RpcError.invalidRequest(`thread ${params.threadId} has no queued turns`);
    this.requireVisible(params.threadId, id);
    const claimed = this.changing(params.threadId, () => this.deps.store.queue.claim(params.threadId, id, this.deps.now()));
    if (!claimed) throw startedError(id);
    const outcome = this.dispatch(claimed);
    if (outcome instanceof RpcError) throw outcome;
    return { turn: outcome };
  }

  /** Starts the head of the queue if the thread is idle and the head is pending. */
  drain(threadId: string): void {
    if (this.stopped || this.deps.turns.activeTurnId(threadId) !== null) return;
    try {
      const claimed = this.changing(threadId, () => this.deps.store.queue.claimHead(threadId, this.deps.now()));
      if (claimed) this.dispatch(claimed);
    } catch (error) {
      this.deps.onInternalError?.(`queued turns of thread ${threadId} could not be started`, error);
    }
  }

  /** At startup: rows a crash left dispatching come back failed, and say so. */
  recoverAfterRestart(): void {
    this.deps.events.commit(this.deps.store, () => {
      const threadIds = this.deps.store.queue.recoverDispatching(queueError(INTERRUPTED_DISPATCH_MESSAGE), this.deps.now());
      for (const threadId of threadIds) this.emitChanged(threadId);
    });
  }

  /**
   * After a restart: every thread's waiting rows start by themselves, as
   * they would have had the app kept running (no client has to resume the
   * thread first). Archived threads keep theirs until unarchived and resumed.
   */
  drainAll(): void {
    for (const threadId of this.deps.store.queue.threadsWithPending()) {
      if (this.deps.store.threads.get(threadId)?.archived === false) this.drain(threadId);
    }
  }

  /** A resumed thread gets its queue snapshot and starts waiting work. */
  afterResume(threadId: string): void {
    this.emitChanged(threadId);
    this.drain(threadId);
  }

  /** No new turns from the queue once shutdown begins. */
  stop(): void {
    this.stopped = true;
  }

  /** Hands a claimed row to a real turn; returns the turn, or the error it failed with. */
  private dispatch(claimed: QueuedTurnRecord): Turn | RpcError {
    const { store, turns } = this.deps;
    let turn: Turn;
    try {
      // The started turn and the end of its claim land together: a crash leaves the claim (recovered as failed) or the started turn, never both.
      turn = this.deps.events.commit(store, () => {
        const started = turns.start(startParamsOf(claimed)).turn;
        if (store.queue.setDispatchTurnId(claimed.id, started.id, this.deps.now())) store.queue.removeDispatching(claimed.threadId, started.id);
        return started;
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.changing(claimed.threadId, () => store.queue.markFailed(claimed.id, queueError(`queued turn could not start: ${message}`), this.deps.now()));
      return error instanceof RpcError ? error : RpcError.internal(`queued turn could not start: ${message}`);
    }
    return turn;
  }

  private requireQueueable(threadId: string, method: string): void {
    const { record } = this.deps.threads.requireUnarchived(threadId, method);
    if (record.ephemeral) throw RpcError.invalidRequest(`ephemeral thread does not support queued turns: ${threadId}`);
  }

  private requireVisible(threadId: string, id: string): QueuedTurnRecord {
    const row = this.deps.store.queue.get(threadId, id);
    if (!row) throw RpcError.because('queue.notFound', `queued turn not found: ${id}`, { queuedTurnId: id });
    if (row.state === 'dispatching') throw startedError(id);
    return row;
  }

  /**
   * Runs a change of the thread's queue and, when it changed something
   * (a truthy result), announces the new queue in the same transaction.
   */
  private changing<T>(threadId: string, change: () => T): T {
    return this.deps.events.commit(this.deps.store, () => {
      const result = change();
      if (result) this.emitChanged(threadId);
      return result;
    });
  }

  private emitChanged(threadId: string): void {
    this.publishChanged(threadId, this.deps.store.queue.listVisible(threadId).map(toWireQueuedTurn));
  }

  private publishChanged(threadId: string, queuedTurns: ResultOf<'thread/queue/reorder'>['queuedTurns']): void {
    this.deps.events.publish('thread/queue/changed', { threadId, queuedTurns }, { threadId });
  }
}

function startedError(id: string): RpcError {
  return RpcError.because('queue.alreadyStarting', `queued turn ${id} is already starting and can no longer be changed`, { queuedTurnId: id });
}

function nonEmpty(metadata: Record<string, string> | null | undefined): Record<string, string> | null {
  return metadata && Object.keys(metadata).length > 0 ? metadata : null;
}

/** A queued row's params checked as turn/start checks them (empty input fails here, seed 003). */
function startParamsOf(row: QueuedTurnRecord): HandlerParamsOf<'turn/start'> {
  return parseParams(TurnStartParams, 'turn/start', row.turnStartParams);
}
