import {
  RpcError,
  type HandlerParamsOf,
  type ConversationItem,
  type ForkMarkerItem,
  type ResultOf,
  type ThreadTokenUsage,
} from '../../shared/protocol/index.js';
import type { ThreadRecord } from '../store/thread-store.js';
import type { TurnRecord } from '../store/turn-store.js';
import { addUsage, ZERO_USAGE } from './active-turn.js';
import type { EventLog } from './event-log.js';
import type { GoalManager } from './goal-manager.js';
import type { ThreadManager } from './thread-manager.js';
import type { ThreadPages } from './thread-pages.js';
import { toWireReadState, toWireThread } from './thread-mapper.js';
import { requireDirectory } from './working-directory.js';

export interface ThreadHistoryDeps {
  readonly threads: ThreadManager;
  /** What history needs of the turn engine (owned here, so the thread layer never imports turns/). */
  readonly turns: { activeTurnId(threadId: string): string | null; forgetUsage(threadId: string): void };
  readonly events: EventLog;
  /** Codex's paged history: the cursors and first page a resume answers with. */
  readonly pages: Pick<ThreadPages, 'turns' | 'backwardsCursors'>;
  /** The source thread's goal, announced as it is when a client forks the thread (as Codex does). */
  readonly goals: Pick<GoalManager, 'get'>;
  /** The context window of a model, when known (announced with a fork's copied token usage). */
  readonly contextWindowOf?: (model: string) => number | null;
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
    return this.loadResult(updated.id, params);
  }

  /** `originator`: the client that forks (its `clientInfo.name`), the new thread's maker. */
  fork(params: HandlerParamsOf<'thread/fork'>, originator: string): ResultOf<'thread/fork'> {
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
      originator,
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
      // As Codex: the tokens of the copied history are the fork's from its start, announced before the thread.
      const copied = copiedUsage(keptTurns, child.model === null ? null : (this.deps.contextWindowOf?.(child.model) ?? null));
      const lastTurn = keptTurns.at(-1);
      if (copied && lastTurn) {
        const turnId = turnIds.get(lastTurn.id)!;
        this.deps.events.publish('thread/tokenUsage/updated', { threadId: child.id, turnId, tokenUsage: copied }, { threadId: child.id, turnId, ephemeral });
      }
      this.deps.events.publish('thread/started', { thread }, { threadId: child.id, ephemeral });
    });
    this.deps.threads.markLoaded(child.id);
    this.announceGoal(parent.record);
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
    this.deps.events.commit(store, () => {
      for (const turn of dropped) store.turns.delete(turn.id);
      // A dropped turn's result can no longer be unread.
      const receipt = record.ephemeral ? null : store.readStates.forgetTurns(record.id, dropped.map((t) => t.id), this.deps.newId());
      if (receipt) {
        this.deps.events.publish('thread/readState/changed', { threadId: record.id, readState: toWireReadState(receipt) }, { threadId: record.id, ephemeral: false });
      }
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

  /** The thread's goal as it is now (Codex's goal snapshot when a client attaches to a loaded thread): `thread/goal/updated`, or `thread/goal/cleared` when it has none. */
  private announceGoal(record: ThreadRecord): void {
    const goal = this.deps.goals.get(record.id);
    const scope = { threadId: record.id, ephemeral: record.ephemeral };
    if (goal) this.deps.events.publish('thread/goal/updated', { threadId: record.id, turnId: null, goal }, scope);
    else this.deps.events.publish('thread/goal/cleared', { threadId: record.id }, scope);
  }

  /**
   * The thread with its whole history (Codex's answer unless the client asks for `excludeTurns`),
   * the cursors that page it back from the newest turn and item, and the first page of turns
   * when the client asks for one (`initialTurnsPage`).
   */
  private loadResult(threadId: string, paging: Pick<HandlerParamsOf<'thread/resume'>, 'excludeTurns' | 'initialTurnsPage'> = {}): ResultOf<'thread/resume'> {
    const { thread, items, eventSeq } = this.deps.threads.read({ threadId, includeTurns: true });
    const started = this.deps.threads.startResult(paging.excludeTurns ? { ...thread, turns: [] } : thread);
    const collaborationMode = { mode: 'default' as const, settings: { model: started.model, reasoning_effort: started.reasoningEffort, developer_instructions: null } };
    const initialTurnsPage = paging.initialTurnsPage ? this.deps.pages.turns({ threadId, ...paging.initialTurnsPage }) : null;
    return { ...started, initialTurnsPage, ...this.deps.pages.backwardsCursors(threadId, thread.turns), collaborationMode, items, eventSeq };
  }
}

/** The token usage a fork starts with: its copied turns' (the last one's as `last`); null when they used none. */
function copiedUsage(turns: readonly TurnRecord[], modelContextWindow: number | null): ThreadTokenUsage | null {
  const used = turns.filter((t) => t.usage !== null);
  const last = used.at(-1)?.usage;
  if (!last) return null;
  const total = used.reduce((sum, t) => addUsage(sum, t.usage!), ZERO_USAGE);
  return { total, last, modelContextWindow };
}
