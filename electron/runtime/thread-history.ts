import {
  RpcError,
  type HandlerParamsOf,
  THREAD_LOAD_CODEX_NULLS,
  type ConversationItem,
  type ForkMarkerItem,
  type ResultOf,
} from '../../shared/protocol/index.js';
import type { ThreadRecord } from '../store/thread-store.js';
import type { EventLog } from './event-log.js';
import type { ThreadManager } from './thread-manager.js';
import { toWireThread } from './thread-mapper.js';
import { requireDirectory } from './working-directory.js';

export interface ThreadHistoryDeps {
  readonly threads: ThreadManager;
  /** What history needs of the turn engine (owned here, so the thread layer never imports turns/). */
  readonly turns: { activeTurnId(threadId: string): string | null; forgetUsage(threadId: string): void };
  readonly events: EventLog;
  readonly newId: () => string;
  readonly now: () => number;
}

/** Resume, fork and rollback: the thread operations that work on whole turns. */
export class ThreadHistory {
  constructor(private readonly deps: ThreadHistoryDeps) {}

  resume(params: HandlerParamsOf<'thread/resume'>): ResultOf<'thread/resume'> {
    const changes = Boolean(params.model || params.modelProvider || params.cwd);
    // Opening an archived thread to read it is fine; preparing it to run with new settings is not.
    const { record, store } = changes
      ? this.deps.threads.requireUnarchived(params.threadId, 'thread/resume')
      : this.deps.threads.require(params.threadId);
    const patch: Partial<ThreadRecord> = {};
    if (params.model) patch.model = params.model;
    if (params.modelProvider) {
      this.deps.threads.requireProvider('thread/resume', params.modelProvider);
      patch.modelProvider = params.modelProvider;
    }
    if (params.cwd) patch.cwd = requireDirectory('thread/resume', params.cwd);
    const updated = Object.keys(patch).length > 0 ? store.threads.update(record.id, patch)! : record;
    const wasLoaded = this.deps.threads.isLoaded(record.id);
    this.deps.threads.markLoaded(record.id);
    if (!wasLoaded) {
      this.deps.events.publish(
        'thread/status/changed',
        { threadId: record.id, status: this.deps.threads.statusOf(record.id) },
        { threadId: record.id, ephemeral: record.ephemeral },
      );
    }
    return this.loadResult(updated.id);
  }

  fork(params: HandlerParamsOf<'thread/fork'>): ResultOf<'thread/fork'> {
    const parent = this.deps.threads.require(params.threadId);
    if (params.modelProvider) this.deps.threads.requireProvider('thread/fork', params.modelProvider);
    const cwd = params.cwd ? requireDirectory('thread/fork', params.cwd) : parent.record.cwd;
    const parentTurns = parent.store.turns.list(parent.record.id).filter((t) => t.status !== 'inProgress');
    let cut = parentTurns.length;
    if (params.lastTurnId) {
      const index = parentTurns.findIndex((t) => t.id === params.lastTurnId);
      if (index < 0) throw RpcError.invalidRequest(`turn ${params.lastTurnId} is not a finished turn of thread ${parent.record.id}`);
      cut = index + 1;
    }
    const keptTurns = parentTurns.slice(0, cut);
    const keptIds = new Set(keptTurns.map((t) => t.id));
    const parentItems = parent.store.items.list(parent.record.id).filter((i) => i.turnId !== null && keptIds.has(i.turnId));

    const ephemeral = params.ephemeral ?? parent.record.ephemeral;
    const store = this.deps.threads.storeOf(ephemeral);
    const now = this.deps.now();
    const child: ThreadRecord = {
      ...parent.record,
      id: this.deps.newId(),
      ephemeral,
      source: 'fork',
      forkedFromId: parent.record.id,
      name: parent.record.name ? `${parent.record.name} (fork)` : null,
      model: params.model ?? parent.record.model,
      modelProvider: params.modelProvider ?? parent.record.modelProvider,
      cwd,
      status: 'idle',
      archived: false,
      archivedAtMs: null,
      createdAtMs: now,
      updatedAtMs: now,
    };
    const turnIds = new Map(keptTurns.map((t) => [t.id, this.deps.newId()] as const));
    const thread = toWireThread(child, { type: 'idle' }, []);
    // The fork's rows and its announcement land together.
    this.deps.events.commit(store, () => {
      store.threads.upsert(child);
      for (const turn of keptTurns) store.turns.upsert({ ...turn, id: turnIds.get(turn.id)!, threadId: child.id });
      for (const item of parentItems) {
        store.items.append(child.id, { ...item, id: this.deps.newId(), turnId: turnIds.get(item.turnId!)! } as ConversationItem);
      }
      const marker: ForkMarkerItem = {
        type: 'forkMarker',
        id: this.deps.newId(),
        turnId: null,
        createdAtMs: now,
        startedAtMs: now,
        completedAtMs: now,
        fromThreadId: parent.record.id,
        fromThreadName: parent.record.name,
      };
      store.items.append(child.id, marker);
      store.checkpoints.save({
        threadId: child.id,
        checkpointId: 'latest',
        reason: 'fork',
        state: { fromThreadId: parent.record.id, turns: keptTurns.length },
        createdAtMs: now,
      });
      this.deps.events.publish('thread/started', { thread }, { threadId: child.id, ephemeral });
    });
    this.deps.threads.markLoaded(child.id);
    return this.loadResult(child.id);
  }

  rollback(params: HandlerParamsOf<'thread/rollback'>): ResultOf<'thread/rollback'> {
    const { record, store } = this.deps.threads.requireUnarchived(params.threadId, 'thread/rollback');
    if (this.deps.turns.activeTurnId(record.id)) {
      throw RpcError.because('thread.busy', `thread ${record.id} has a running turn; stop it before rolling back`, { threadId: record.id });
    }
    const turns = store.turns.list(record.id);
    if (params.numTurns > turns.length) {
      throw RpcError.invalidParams(
        `invalid params for thread/rollback: numTurns: the thread has only ${turns.length} turn${turns.length === 1 ? '' : 's'}`,
      );
    }
    const dropped = turns.slice(turns.length - params.numTurns);
    const now = this.deps.now();
    store.transaction(() => {
      for (const turn of dropped) store.turns.delete(turn.id);
      store.threads.update(record.id, { updatedAtMs: now, status: 'idle' });
      store.checkpoints.save({
        threadId: record.id,
        checkpointId: 'latest',
        reason: 'rollback',
        state: { droppedTurnIds: dropped.map((t) => t.id) },
        createdAtMs: now,
      });
    });
    this.deps.turns.forgetUsage(record.id);
    return { thread: this.deps.threads.read({ threadId: record.id, includeTurns: true }).thread };
  }

  private loadResult(threadId: string): ResultOf<'thread/resume'> {
    const { thread, items, eventSeq } = this.deps.threads.read({ threadId, includeTurns: true });
    return { ...this.deps.threads.startResult(thread), ...THREAD_LOAD_CODEX_NULLS, items, eventSeq };
  }
}
