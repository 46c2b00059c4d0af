import path from 'node:path';
import {
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
import type { ThreadCursor, ThreadRecord } from '../store/thread-store.js';
import type { EventLog } from './event-log.js';
import { readGitInfo } from './git-info.js';
import { requireDirectory } from './working-directory.js';
import { effectiveApprovalPolicy, readStateOf, sandboxPolicyOf, toWireThread, toWireTurn } from './thread-mapper.js';

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

  start(params: HandlerParamsOf<'thread/start'>, source: SessionSource): ResultOf<'thread/start'> {
    const defaults = this.deps.defaults();
    const now = this.deps.now();
    const ephemeral = params.ephemeral ?? false;
    if (params.modelProvider) this.requireProvider('thread/start', params.modelProvider);
    const cwd = params.cwd ? requireDirectory('thread/start', params.cwd) : path.resolve(defaults.cwd);
    const git = ephemeral ? null : readGitInfo(cwd);
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
    };
    const store = this.storeOf(ephemeral);
    const thread = toWireThread(record, { type: 'idle' }, []);
    // The thread's row and its announcement land together.
    this.deps.events.commit(store, () => {
      store.threads.upsert(record);
      this.deps.events.publish('thread/started', { thread }, { threadId: record.id, ephemeral });
    });
    this.loaded.set(record.id, { activeTurnId: null, waitingApprovals: 0 });
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
    const after = params.cursor ? decodeCursor(params.cursor) : undefined;
    const query = { archived, limit: limit + 1, ...(after ? { after } : {}) } as const;
    const merged = [...this.deps.durable.threads.list(query), ...this.deps.memory.threads.list(query)];
    merged.sort((a, b) => b.updatedAtMs - a.updatedAtMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const page = merged.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map((r) => this.toWire(r)),
      nextCursor: merged.length > limit && last ? encodeCursor(last) : null,
      backwardsCursor: null,
      readStates: Object.fromEntries(page.map((r) => [r.id, readStateOf(r)])),
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
      readState: readStateOf(record),
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
    if (!this.loaded.has(threadId)) this.loaded.set(threadId, { activeTurnId: null, waitingApprovals: 0 });
  }

  isLoaded(threadId: string): boolean {
    return this.loaded.has(threadId);
  }

  setActiveTurn(threadId: string, turnId: string | null): void {
    const state = this.loaded.get(threadId) ?? { activeTurnId: null, waitingApprovals: 0 };
    state.activeTurnId = turnId;
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
    if (!state.activeTurnId) return { type: 'idle' };
    return { type: 'active', activeFlags: state.waitingApprovals > 0 ? ['waitingOnApproval'] : [] };
  }

  toWire(record: ThreadRecord, turns: Thread['turns'] = []): Thread {
    return toWireThread(record, this.statusOf(record.id), turns);
  }
}

function encodeCursor(record: ThreadRecord): string {
  return Buffer.from(JSON.stringify([record.updatedAtMs, record.id])).toString('base64url');
}

function decodeCursor(cursor: string): ThreadCursor {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') {
      return { updatedAtMs: value[0], id: value[1] };
    }
  } catch {
    // fall through to the typed error
  }
  throw RpcError.invalidParams(`invalid params for thread/list: cursor: not a cursor returned by thread/list`);
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
