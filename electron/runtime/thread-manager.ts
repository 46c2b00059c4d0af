import path from 'node:path';
import {
  LOCAL_ENVIRONMENT_ID,
  RpcError,
  THREAD_START_CODEX_NULLS,
  type Checkpoint,
  type ConversationItem,
  type HandlerParamsOf,
  type ResultOf,
  type SessionSource,
  type Thread,
  type ThreadItem,
  type ThreadStatus,
} from '../../shared/protocol/index.js';
import type { StateStore } from '../store/state-store.js';
import type { ThreadRecord } from '../store/thread-store.js';
import { compareKeyset, decodeListCursor, encodeListCursor } from './list-cursor.js';
import type { EventLog } from './event-log.js';
import { readGitInfo } from './git-info.js';
import { requireDirectory } from './working-directory.js';
import { effectiveApprovalPolicy, sandboxPolicyOf, toWireReadState, toWireThread, toWireTurn } from './thread-mapper.js';

export interface ThreadDefaults {
  readonly modelProvider: string;
  readonly model: string | null;
  readonly cwd: string;
}

export interface ThreadManagerDeps {
  readonly durable: StateStore;
  readonly memory: StateStore;
  readonly events: EventLog;
  readonly version: string;
  readonly defaults: () => ThreadDefaults;
  /** The model a thread's turns use when it names none (its provider's default); '' when none is known. */
  readonly defaultModelOf?: (modelProvider: string) => string | null;
  readonly newId: () => string;
  readonly now: () => number;
  /** Ids of the model providers that exist (built in or configured); a thread naming another is refused. */
  readonly providerIds?: () => readonly string[];
  /** The running turn's announced items not yet stored (commands, MCP calls, a streaming reply), as they are now. */
  readonly liveItemsOf?: (threadId: string) => ThreadItem[];
}

/** Live, in-memory state of a loaded thread. */
interface LoadedThread {
  activeTurnId: string | null;
  /** Approvals of the thread that wait for the person (Codex's `waitingOnApproval` flag). */
  waitingApprovals: number;
  /** Its last turn failed (Codex's `systemError` status), until the next turn starts. */
  failed: boolean;
}

const DEFAULT_PAGE = 50;

/**
 * Owns thread lifecycle (seed 000 ThreadManager): start, list, read, rename,
 * archive. Durable threads live in the SQLite file; ephemeral ones in an
 * in-memory database with the same schema, so both share one code path.
 */
export class ThreadManager {
  private readonly loaded = new Map<string, LoadedThread>();

  constructor(private readonly deps: ThreadManagerDeps) {}

  /** `originator`: the client that asks (its `clientInfo.name`), kept as the thread's Codex `originator`. */
  start(params: HandlerParamsOf<'thread/start'>, source: SessionSource, originator: string): ResultOf<'thread/start'> {
    const defaults = this.deps.defaults();
    const now = this.deps.now();
    const ephemeral = params.ephemeral ?? false;
    if (params.modelProvider) this.requireProvider('thread/start', params.modelProvider);
    const cwd = params.cwd ? requireDirectory('thread/start', params.cwd) : path.resolve(defaults.cwd);
    const git = ephemeral ? null : readGitInfo(cwd);
    // Checked by the environment registry before (thread-handlers): at most one machine besides this one.
    const remote = params.environments?.find((selected) => selected.environmentId !== LOCAL_ENVIRONMENT_ID) ?? null;
    const record: ThreadRecord = {
      id: this.deps.newId(),
      rolloutPath: null,
      preview: '',
      ephemeral,
      modelProvider: params.modelProvider ?? defaults.modelProvider,
      model: params.model ?? defaults.model,
      createdAtMs: now,
      updatedAtMs: now,
      status: 'idle',
      path: null,
      cwd,
      cliVersion: this.deps.version,
      source,
      name: null,
      sandboxPolicy: params.sandbox ?? null,
      approvalMode: params.approvalPolicy ?? null,
      archived: false,
      archivedAtMs: null,
      gitSha: git?.sha ?? null,
      gitBranch: git?.branch ?? null,
      gitOriginUrl: git?.originUrl ?? null,
      memoryMode: null,
      forkedFromId: null,
      originator,
      environmentId: remote?.environmentId ?? LOCAL_ENVIRONMENT_ID,
      environmentCwd: remote?.cwd ?? null,
    };
    const store = this.storeOf(ephemeral);
    const thread = toWireThread(record, { type: 'idle' }, []);
    // The thread's row and its announcement land together.
    this.deps.events.commit(store, () => {
      store.threads.upsert(record);
      this.deps.events.publish('thread/started', { thread }, { threadId: record.id, ephemeral });
    });
    this.loaded.set(record.id, { activeTurnId: null, waitingApprovals: 0, failed: false });
    return this.startResult(thread);
  }

  /** The effective settings of a thread, as Codex answers thread/start, resume and fork. */
  startResult(thread: Thread): ResultOf<'thread/start'> {
    return {
      thread,
      model: thread.model ?? this.deps.defaultModelOf?.(thread.modelProvider) ?? '',
      modelProvider: thread.modelProvider,
      cwd: thread.cwd,
      approvalPolicy: effectiveApprovalPolicy(thread.approvalPolicy),
      approvalsReviewer: 'user',
      sandbox: sandboxPolicyOf(thread.sandbox, thread.cwd),
      runtimeWorkspaceRoots: [thread.cwd],
      instructionSources: [],
      disabledPluginIds: [],
      multiAgentMode: 'explicitRequestOnly',
      ...THREAD_START_CODEX_NULLS,
    };
  }

  list(params: HandlerParamsOf<'thread/list'>): ResultOf<'thread/list'> {
    const limit = params.limit ?? DEFAULT_PAGE;
    const archived = params.archived === true ? 'archived' : params.includeArchived ? 'all' : 'active';
    const sortKey = params.sortKey ?? 'created_at';
    const direction = params.sortDirection ?? 'desc';
    const sortBy = sortKey === 'created_at' ? 'createdAtMs' : 'updatedAtMs';
    const scope = (dir: string) => `threads:${sortKey}/${dir}`;
    const after = params.cursor ? decodeListCursor('thread/list', scope(direction), params.cursor) : undefined;
    const query = { archived, limit: limit + 1, sortBy, direction, ...(after ? { after } : {}) } as const;
    const positionOf = (r: ThreadRecord) => ({ at: r[sortBy], id: r.id });
    const merged = [...this.deps.durable.threads.list(query), ...this.deps.memory.threads.list(query)];
    merged.sort((a, b) => compareKeyset(direction, positionOf(a), positionOf(b)));
    const page = merged.slice(0, limit);
    const first = page[0];
    const last = page[page.length - 1];
    return {
      data: page.map((r) => this.toWire(r)),
      nextCursor: merged.length > limit && last ? encodeListCursor(scope(direction), { ...positionOf(last), inclusive: false }) : null,
      backwardsCursor: first ? encodeListCursor(scope(direction === 'desc' ? 'asc' : 'desc'), { ...positionOf(first), inclusive: true }) : null,
      readStates: Object.fromEntries(page.filter((r) => !r.ephemeral).map((r) => [r.id, toWireReadState(this.deps.durable.readStates.get(r.id))])),
    };
  }

  read(params: HandlerParamsOf<'thread/read'>): ResultOf<'thread/read'> {
    const { record, store } = this.require(params.threadId);
    const items = withLiveItems(store.items.list(record.id), this.deps.liveItemsOf?.(record.id) ?? []);
    const turnRecords = store.turns.list(record.id);
    const byTurn = new Map<string, ThreadItem[]>();
    if (params.includeTurns) {
      for (const item of items) {
        // Fork markers are Wheelhouse's own: they stay in the flat list, never in a Codex turn.
        if (item.turnId === null || item.type === 'forkMarker') continue;
        const list = byTurn.get(item.turnId) ?? [];
        list.push(item);
        byTurn.set(item.turnId, list);
      }
    }
    const turns = params.includeTurns ? turnRecords.map((t) => toWireTurn(t, byTurn.get(t.id) ?? [], 'full')) : [];
    const checkpoint = store.checkpoints.load(record.id);
    return {
      thread: this.toWire(record, turns),
      readState: record.ephemeral ? null : toWireReadState(store.readStates.get(record.id)),
      items,
      eventSeq: this.deps.events.lastSeq,
      checkpoint: checkpoint
        ? {
            checkpointId: checkpoint.checkpointId,
            reason: checkpoint.reason,
            state: checkpoint.state,
            createdAt: Math.floor(checkpoint.createdAtMs / 1000),
          } satisfies Checkpoint
        : null,
    };
  }

  setName(params: HandlerParamsOf<'thread/name/set'>): ResultOf<'thread/name/set'> {
    const { record, store } = this.require(params.threadId);
    const name = params.name.trim();
    this.deps.events.commit(store, () => {
      store.threads.update(record.id, { name, updatedAtMs: this.deps.now() });
      this.deps.events.publish(
        'thread/name/updated',
        { threadId: record.id, threadName: name },
        { threadId: record.id, ephemeral: record.ephemeral },
      );
    });
    return {};
  }

  archive(params: HandlerParamsOf<'thread/archive'>): ResultOf<'thread/archive'> {
    const { record, store } = this.require(params.threadId);
    if (this.loaded.get(record.id)?.activeTurnId) {
      throw RpcError.because('thread.busy', `thread ${record.id} has a running turn; stop it before archiving`, { threadId: record.id });
    }
    this.deps.events.commit(store, () => {
      if (!record.archived) store.threads.update(record.id, { archived: true, archivedAtMs: this.deps.now() });
      this.deps.events.publish('thread/archived', { threadId: record.id }, { threadId: record.id, ephemeral: record.ephemeral });
      // As Codex: archiving unloads the thread.
      if (this.loaded.has(record.id)) {
        this.deps.events.publish('thread/status/changed', { threadId: record.id, status: { type: 'notLoaded' } }, { threadId: record.id, ephemeral: record.ephemeral });
      }
    });
    this.loaded.delete(record.id);
    return {};
  }

  unarchive(params: HandlerParamsOf<'thread/unarchive'>): ResultOf<'thread/unarchive'> {
    const { record, store } = this.require(params.threadId);
    const updated = this.deps.events.commit(store, () => {
      const unarchived = record.archived ? store.threads.update(record.id, { archived: false, archivedAtMs: null, updatedAtMs: this.deps.now() })! : record;
      this.deps.events.publish('thread/unarchived', { threadId: record.id }, { threadId: record.id, ephemeral: record.ephemeral });
      return unarchived;
    });
    return { thread: this.toWire(updated) };
  }

  /**
   * thread/readState/update: the person read the thread, or marked it unread.
   * Refused (`thread.readStateConflict`, with the state as it is now) when the
   * client saw an older revision: a result arrived since that they have not seen.
   */
  updateReadState(params: HandlerParamsOf<'thread/readState/update'>): ResultOf<'thread/readState/update'> {
    const { record, store } = this.require(params.threadId);
    if (record.ephemeral) {
      throw RpcError.because('thread.readStateUnavailable', `thread ${record.id} is ephemeral and keeps no read state`, { threadId: record.id });
    }
    const readState = this.deps.events.commit(store, () => {
      const current = store.readStates.get(record.id);
      if (current.revision !== params.expectedRevision) {
        throw RpcError.because('thread.readStateConflict', `thread ${record.id}: its read state changed since revision ${params.expectedRevision}; show it again before marking`, {
          threadId: record.id,
          readState: toWireReadState(current),
        });
      }
      const marked = toWireReadState(store.readStates.mark(record.id, params.operation.type === 'read', this.deps.newId()));
      this.deps.events.publish('thread/readState/changed', { threadId: record.id, readState: marked }, { threadId: record.id, ephemeral: false });
      return marked;
    });
    return { readState };
  }

  /**
   * A turn of the thread ended with a result for the person (a reply, an
   * error): it is unread from that turn on, unless an earlier one still is.
   * Called inside the turn's closing transaction, before its status and
   * `turn/completed` (Codex's order); announced once per turn.
   */
  publishResult(store: StateStore, threadId: string, turnId: string, scope: { readonly turnId: string; readonly ephemeral: boolean }): void {
    if (scope.ephemeral) return;
    if (!store.readStates.publish(threadId, turnId, this.deps.newId())) return;
    const readState = toWireReadState(store.readStates.get(threadId));
    this.deps.events.publish('thread/readState/changed', { threadId, readState }, { threadId, turnId: scope.turnId, ephemeral: false });
  }

  /**
   * Where the thread's next commands run (Codex's `environments` on turn/start
   * and thread/settings/update): a machine and the folder there, or this one.
   * The running command stays where it started.
   */
  setEnvironment(threadId: string, choice: { environmentId: string; cwd: string | null }, method: string): ThreadRecord {
    const { record, store } = this.requireUnarchived(threadId, method);
    if (record.environmentId === choice.environmentId && record.environmentCwd === choice.cwd) return record;
    return store.threads.update(record.id, { environmentId: choice.environmentId, environmentCwd: choice.cwd, updatedAtMs: this.deps.now() })!;
  }

  /** Loaded threads whose commands run on `environmentId` (told when its connection comes and goes). */
  loadedOn(environmentId: string): { threadId: string; ephemeral: boolean }[] {
    const found: { threadId: string; ephemeral: boolean }[] = [];
    for (const threadId of this.loaded.keys()) {
      const record = this.deps.durable.threads.get(threadId) ?? this.deps.memory.threads.get(threadId);
      if (record?.environmentId === environmentId) found.push({ threadId, ephemeral: record.ephemeral });
    }
    return found;
  }

  loadedList(params: HandlerParamsOf<'thread/loaded/list'>): ResultOf<'thread/loaded/list'> {
    const ids = [...this.loaded.keys()].sort();
    const start = params.cursor ? ids.findIndex((id) => id > params.cursor!) : 0;
    const from = start < 0 ? ids.length : start;
    const limit = params.limit ?? ids.length;
    const data = ids.slice(from, from + limit);
    return { data, nextCursor: from + limit < ids.length ? (data[data.length - 1] ?? null) : null };
  }

  /** Looks a thread up in either store, or throws a -32600 naming the id. */
  require(threadId: string): { record: ThreadRecord; store: StateStore } {
    const durable = this.deps.durable.threads.get(threadId);
    if (durable) return { record: durable, store: this.deps.durable };
    const memory = this.deps.memory.threads.get(threadId);
    if (memory) return { record: memory, store: this.deps.memory };
    throw RpcError.threadNotFound(threadId);
  }

  /**
   * The one rule for archived threads: they are read-only until unarchived.
   * Reading, listing, opening (thread/resume without changes), renaming,
   * forking (the copy is a new, active thread) and unarchiving work; anything
   * that runs the agent or changes its conversation or settings — turns,
   * resume with a new model/provider/cwd, rollback, goal set/clear — is
   * refused here with -32600 and `data.reason: "thread.archived"`.
   */
  requireUnarchived(threadId: string, method: string): { record: ThreadRecord; store: StateStore } {
    const found = this.require(threadId);
    if (found.record.archived) {
      throw RpcError.because('thread.archived', `${method}: thread ${threadId} is archived; unarchive it (thread/unarchive) first`, { threadId });
    }
    return found;
  }

  /** Throws -32602 when `providerId` names no built-in or configured provider. */
  requireProvider(method: string, providerId: string): void {
    const known = this.deps.providerIds?.();
    if (!known || known.includes(providerId)) return;
    throw RpcError.because(
      'config.providerNotFound',
      `invalid params for ${method}: modelProvider: unknown model provider "${providerId}" (known: ${known.join(', ')})`,
      { modelProvider: providerId, known },
    );
  }

  storeOf(ephemeral: boolean): StateStore {
    return ephemeral ? this.deps.memory : this.deps.durable;
  }

  /** Marks a thread loaded (thread/resume, a new turn). */
  markLoaded(threadId: string): void {
    if (!this.loaded.has(threadId)) this.loaded.set(threadId, { activeTurnId: null, waitingApprovals: 0, failed: false });
  }

  isLoaded(threadId: string): boolean {
    return this.loaded.has(threadId);
  }

  /** A turn started (`turnId`) or ended (null; `failed` when it failed, Codex's `systemError` until the next turn). */
  setActiveTurn(threadId: string, turnId: string | null, failed = false): void {
    const state = this.loaded.get(threadId) ?? { activeTurnId: null, waitingApprovals: 0, failed: false };
    state.activeTurnId = turnId;
    state.failed = turnId === null && failed;
    this.loaded.set(threadId, state);
  }

  /**
   * An approval of the thread began (`waiting`) or stopped waiting: while
   * any waits, its active status carries Codex's `waitingOnApproval` flag,
   * announced when it comes and goes.
   */
  approvalWaiting(threadId: string, waiting: boolean, scope: { readonly turnId: string | null; readonly ephemeral: boolean }): void {
    const state = this.loaded.get(threadId);
    if (!state) return;
    const before = state.waitingApprovals > 0;
    state.waitingApprovals = Math.max(0, state.waitingApprovals + (waiting ? 1 : -1));
    if (before === state.waitingApprovals > 0 || !state.activeTurnId) return;
    this.deps.events.publish('thread/status/changed', { threadId, status: this.statusOf(threadId) }, { threadId, turnId: scope.turnId, ephemeral: scope.ephemeral });
  }

  activeTurn(threadId: string): string | null {
    return this.loaded.get(threadId)?.activeTurnId ?? null;
  }

  statusOf(threadId: string): ThreadStatus {
    const state = this.loaded.get(threadId);
    if (!state) return { type: 'notLoaded' };
    if (!state.activeTurnId) return state.failed ? { type: 'systemError' } : { type: 'idle' };
    return { type: 'active', activeFlags: state.waitingApprovals > 0 ? ['waitingOnApproval'] : [] };
  }

  toWire(record: ThreadRecord, turns: Thread['turns'] = []): Thread {
    return toWireThread(record, this.statusOf(record.id), turns);
  }
}

/**
 * A window that opens a thread mid-turn sees what is waiting or running: a
 * stored item still changing (a command's output so far) in its current
 * state, the ones not stored yet after what the turn stored.
 */
function withLiveItems(stored: ConversationItem[], live: ThreadItem[]): ConversationItem[] {
  if (live.length === 0) return stored;
  const liveById = new Map(live.map((item) => [item.id, item] as const));
  const merged = stored.map((item) => {
    const current = liveById.get(item.id);
    if (!current) return item;
    liveById.delete(item.id);
    return current;
  });
  return [...merged, ...liveById.values()];
}
