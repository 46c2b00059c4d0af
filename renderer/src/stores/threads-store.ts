import { create, type StoreApi, type UseBoundStore } from 'zustand';
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import type { ParamsOf, ResultOf } from '../../../shared/protocol/registry.js';
import type { ThreadReadState } from '../../../shared/protocol/methods/thread.js';
import { MAX_THREAD_NAME_LENGTH, type Thread, type ThreadStatus, type Turn } from '../../../shared/protocol/thread.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { threadTitle } from '../format/thread-labels.js';
import { showRequestError, useToastStore } from './toast-store.js';

/** Whether the thread list has been fetched on this connection yet. */
export type ThreadsLoad = 'loading' | 'ready' | 'failed';

/** The answer to a rename: the view keeps the editor open with the message when it failed. */
export type RenameOutcome = { readonly ok: true } | { readonly ok: false; readonly message: string };

export interface ThreadsState {
  readonly threads: Readonly<Record<string, Thread>>;
  /** What the person has read of each thread (none for ephemeral threads): a thread with `firstUnread` has a result they have not seen. */
  readonly readStates: Readonly<Record<string, ThreadReadState>>;
  readonly load: ThreadsLoad;
  readonly selectedId: string | null;
  readonly showArchived: boolean;
  /** The thread whose name is being edited inline, if any. */
  readonly renamingId: string | null;
  readonly creating: boolean;
  /**
   * Starts a thread in `cwd` (default: the open thread's folder, else the last project folder) and opens it;
   * `worktree`: in a separate copy of that repository. Resolves whether it started.
   */
  newThread(cwd?: string, options?: { readonly worktree?: boolean }): Promise<boolean>;
  /** Copies a thread into a new one (thread/fork) and opens the copy. */
  fork(threadId: string): Promise<void>;
  /** The folder new threads start in when none is open (chosen in first run or Settings). */
  readonly projectFolder: string | null;
  setProjectFolder(path: string): void;
  select(threadId: string | null): void;
  startRename(threadId: string): void;
  cancelRename(): void;
  rename(threadId: string, name: string): Promise<RenameOutcome>;
  archive(threadId: string): Promise<void>;
  unarchive(threadId: string): Promise<void>;
  setShowArchived(show: boolean): Promise<void>;
  /**
   * Where the thread's next commands run (thread/settings/update `environments`): a machine and the
   * folder there, or null for this computer. Resolves null, or the runtime's words when it refused.
   */
  chooseMachine(threadId: string, machine: { readonly environmentId: string; readonly cwd: string } | null): Promise<string | null>;
  /** Refetches the list from the runtime (on every connect). */
  refresh(): Promise<void>;
}

/** A change the runtime announced; replayed over a refetch that raced with it. */
type ThreadEvent =
  | { readonly kind: 'started'; readonly thread: Thread }
  | { readonly kind: 'archived'; readonly threadId: string; readonly at: number }
  | { readonly kind: 'unarchived'; readonly threadId: string; readonly at: number }
  | { readonly kind: 'renamed'; readonly threadId: string; readonly name: string | null; readonly at: number }
  | { readonly kind: 'status'; readonly threadId: string; readonly status: ThreadStatus }
  | { readonly kind: 'readState'; readonly threadId: string; readonly readState: ThreadReadState }
  | { readonly kind: 'turnStarted'; readonly threadId: string; readonly turn: Turn; readonly at: number };

const PAGE_SIZE = 200;
const SELECTED_KEY = 'wheelhouse.selectedThread';
const FOLDER_KEY = 'wheelhouse.projectFolder';
const SHOW_ARCHIVED_KEY = 'wheelhouse.showArchived';

/** Unix seconds, the unit of every thread timestamp on the wire. */
const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Threads as the sidebar shows them. Subscribes once to the thread
 * notifications so every window and client stays in sync, and refetches the
 * whole list after each (re)connect.
 */
export function createThreadsStore(
  client: WheelhouseClient,
  storage: Storage,
  /** Remembers the last project folder across sessions. */
  settings: Storage = storage,
): UseBoundStore<StoreApi<ThreadsState>> {
  let recording: ThreadEvent[] | null = null;

  const store = create<ThreadsState>()((set, get) => {
    const patch = (threadId: string, change: Partial<Thread>) =>
      set((state) => {
        const current = state.threads[threadId];
        return current ? { threads: { ...state.threads, [threadId]: { ...current, ...change } } } : {};
      });

    return {
      threads: {},
      readStates: {},
      load: 'loading',
      selectedId: storage.getItem(SELECTED_KEY),
      showArchived: settings.getItem(SHOW_ARCHIVED_KEY) === '1',
      renamingId: null,
      creating: false,
      projectFolder: settings.getItem(FOLDER_KEY),

      setProjectFolder: (path) => {
        settings.setItem(FOLDER_KEY, path);
        set({ projectFolder: path });
      },

      newThread: async (cwd, options = {}) => {
        if (get().creating) return false;
        set({ creating: true });
        const { selectedId, threads, projectFolder } = get();
        const folder = cwd ?? (selectedId ? threads[selectedId]?.cwd : undefined) ?? projectFolder;
        try {
          const { thread } = await client.request('thread/start', {
            ...(folder ? { cwd: folder } : {}),
            ...(options.worktree ? { worktree: true } : {}),
          });
          if (cwd) get().setProjectFolder(cwd);
          applyEvent({ kind: 'started', thread });
          get().select(thread.id);
          return true;
        } catch (error) {
          showRequestError(error);
          return false;
        } finally {
          set({ creating: false });
        }
      },

      fork: async (threadId) => {
        const parent = get().threads[threadId];
        try {
          const { thread } = await client.request('thread/fork', { threadId });
          applyEvent({ kind: 'started', thread });
          get().select(thread.id);
          // The runtime names forks of named threads; an unnamed one gets its parent's title, marked as a fork.
          if (!thread.name && parent) {
            const name = `${threadTitle(parent).slice(0, MAX_THREAD_NAME_LENGTH - 7)} (fork)`;
            patch(thread.id, { name });
            await client.request('thread/name/set', { threadId: thread.id, name });
          }
          useToastStore.getState().show('notice', 'Forked into a new thread. The original is unchanged.');
        } catch (error) {
          showRequestError(error);
        }
      },

      select: (threadId) => {
        if (threadId === null) storage.removeItem(SELECTED_KEY);
        else storage.setItem(SELECTED_KEY, threadId);
        set({ selectedId: threadId });
        if (threadId !== null) markReadIfViewed(threadId);
      },

      startRename: (threadId) => set({ renamingId: threadId }),
      cancelRename: () => set({ renamingId: null }),

      rename: async (threadId, name) => {
        const trimmed = name.trim();
        if (trimmed.length === 0) return { ok: false, message: 'A thread name can’t be empty.' };
        const before = get().threads[threadId];
        if (!before) return { ok: false, message: 'This thread no longer exists.' };
        set({ renamingId: null });
        if (before.name === trimmed) return { ok: true };
        patch(threadId, { name: trimmed });
        try {
          await client.request('thread/name/set', { threadId, name: trimmed });
          return { ok: true };
        } catch (error) {
          patch(threadId, { name: before.name });
          showRequestError(error);
          return { ok: false, message: error instanceof Error ? error.message : String(error) };
        }
      },

      chooseMachine: async (threadId, machine) => {
        try {
          await client.request('thread/settings/update', { threadId, environments: machine ? [machine] : [] });
          const { thread } = await client.request('thread/read', { threadId });
          patch(threadId, { environments: thread.environments });
          return null;
        } catch (error) {
          return (error instanceof Error ? error.message : String(error)).replace(/^invalid params: environments: /, '');
        }
      },

      archive: async (threadId) => {
        const thread = get().threads[threadId];
        patch(threadId, { archived: true, archivedAt: nowSeconds() });
        try {
          await client.request('thread/archive', { threadId });
          useToastStore.getState().show('notice', thread ? `Archived “${threadTitle(thread)}”` : 'Thread archived', {
            label: 'Undo',
            run: () => void get().unarchive(threadId),
          });
        } catch (error) {
          if (thread) patch(threadId, { archived: thread.archived, archivedAt: thread.archivedAt });
          showRequestError(error);
        }
      },

      unarchive: async (threadId) => {
        const thread = get().threads[threadId];
        patch(threadId, { archived: false, archivedAt: null });
        try {
          const result = await client.request('thread/unarchive', { threadId });
          set((state) => ({ threads: { ...state.threads, [threadId]: result.thread } }));
        } catch (error) {
          if (thread) patch(threadId, { archived: thread.archived, archivedAt: thread.archivedAt });
          showRequestError(error);
        }
      },

      setShowArchived: async (show) => {
        if (show) settings.setItem(SHOW_ARCHIVED_KEY, '1');
        else settings.removeItem(SHOW_ARCHIVED_KEY);
        set({ showArchived: show });
        if (!show) return;
        try {
          const archived = await fetchAll(client, { archived: true });
          set((state) => ({ threads: { ...state.threads, ...byId(archived.threads) }, readStates: { ...state.readStates, ...archived.readStates } }));
        } catch (error) {
          showRequestError(error);
        }
      },

      refresh: async () => {
        const events: ThreadEvent[] = [];
        recording = events;
        try {
          const active = await fetchAll(client, {});
          const archived = get().showArchived ? await fetchAll(client, { archived: true }) : { threads: [], readStates: {} };
          recording = null;
          set({
            threads: { ...byId(active.threads), ...byId(archived.threads) },
            readStates: { ...active.readStates, ...archived.readStates },
            load: 'ready',
          });
          for (const event of events) applyEvent(event);
          const { selectedId, threads } = get();
          if (selectedId !== null && !threads[selectedId]) await restoreSelection(selectedId);
          if (selectedId !== null) markReadIfViewed(selectedId);
        } catch (error) {
          set({ load: 'failed' });
          showRequestError(error);
        } finally {
          if (recording === events) recording = null;
        }
      },
    };
  });

  /** Applies one announced change; idempotent, so replaying it after a refetch is safe. */
  function applyEvent(event: ThreadEvent): void {
    recording?.push(event);
    const { threads } = store.getState();
    switch (event.kind) {
      case 'started':
        store.setState({ threads: { ...threads, [event.thread.id]: threads[event.thread.id] ?? event.thread } });
        return;
      case 'archived': {
        const thread = threads[event.threadId];
        if (thread && !thread.archived) {
          store.setState({ threads: { ...threads, [event.threadId]: { ...thread, archived: true, archivedAt: event.at } } });
        }
        return;
      }
      case 'unarchived': {
        const thread = threads[event.threadId];
        if (thread) {
          const updated = { ...thread, archived: false, archivedAt: null, updatedAt: Math.max(thread.updatedAt, event.at) };
          store.setState({ threads: { ...threads, [event.threadId]: updated } });
        } else {
          void fetchOne(event.threadId);
        }
        return;
      }
      case 'renamed': {
        const thread = threads[event.threadId];
        if (thread && thread.name !== event.name) {
          const updated = { ...thread, name: event.name, updatedAt: Math.max(thread.updatedAt, event.at) };
          store.setState({ threads: { ...threads, [event.threadId]: updated } });
        }
        return;
      }
      case 'status':
        patchThread(event.threadId, { status: event.status });
        return;
      case 'readState':
        store.setState({ readStates: { ...store.getState().readStates, [event.threadId]: event.readState } });
        markReadIfViewed(event.threadId);
        return;
      case 'turnStarted': {
        // A first message names an untitled thread in the list; the runtime announces it only through the turn.
        const thread = threads[event.threadId];
        if (!thread) return;
        const first = event.turn.items.find((item) => item.type === 'userMessage');
        const preview = thread.preview || (first?.type === 'userMessage' ? first.content.map((c) => c.text).join(' ').trim() : '');
        patchThread(event.threadId, {
          preview,
          updatedAt: Math.max(thread.updatedAt, event.at),
          status: { type: 'active', activeFlags: [] },
          ...(event.turn.model ? { model: event.turn.model } : {}),
        });
        return;
      }
      default:
        return assertNever(event);
    }
  }

  function patchThread(threadId: string, change: Partial<Thread>): void {
    const thread = store.getState().threads[threadId];
    if (thread) store.setState({ threads: { ...store.getState().threads, [threadId]: { ...thread, ...change } } });
  }

  /** The revisions a read mark was sent for, so a thread is marked once per new result. */
  const marking = new Set<string>();

  /**
   * The open thread, in a window the person can see, has nothing unread: a
   * result arriving while they look at it is read as it comes. The mark names
   * the revision shown, so one made from a stale view is refused by the
   * runtime (and the newer state arrives as its own notification).
   */
  function markReadIfViewed(threadId: string): void {
    const readState = store.getState().readStates[threadId];
    if (!readState?.firstUnread || store.getState().selectedId !== threadId) return;
    if (typeof document !== 'undefined' && document.visibilityState === 'hidden') return;
    if (marking.has(readState.revision)) return;
    marking.add(readState.revision);
    client
      .request('thread/readState/update', { threadId, operation: { type: 'read' }, expectedRevision: readState.revision })
      .then(({ readState: marked }) => applyEvent({ kind: 'readState', threadId, readState: marked }))
      // Refused or lost: the runtime's own notification carries whatever is current.
      .catch(() => undefined)
      .finally(() => marking.delete(readState.revision));
  }

  /** A selection remembered across a reload may point at an archived thread the list left out. */
  async function restoreSelection(threadId: string): Promise<void> {
    try {
      const { thread } = await client.request('thread/read', { threadId });
      store.setState((state) => ({ threads: { ...state.threads, [thread.id]: thread } }));
    } catch (error) {
      if (error instanceof RpcError && error.code === ErrorCode.InvalidRequest) store.getState().select(null);
    }
  }

  async function fetchOne(threadId: string): Promise<void> {
    try {
      const { thread } = await client.request('thread/read', { threadId });
      store.setState((state) => ({ threads: { ...state.threads, [thread.id]: thread } }));
    } catch (error) {
      showRequestError(error);
    }
  }

  client.on('thread/started', ({ thread }) => applyEvent({ kind: 'started', thread }));
  client.on('thread/archived', ({ threadId }) => applyEvent({ kind: 'archived', threadId, at: nowSeconds() }));
  client.on('thread/unarchived', ({ threadId }) => applyEvent({ kind: 'unarchived', threadId, at: nowSeconds() }));
  client.on('thread/name/updated', ({ threadId, threadName }) =>
    applyEvent({ kind: 'renamed', threadId, name: threadName ?? null, at: nowSeconds() }),
  );
  client.on('thread/status/changed', ({ threadId, status }) => applyEvent({ kind: 'status', threadId, status }));
  client.on('thread/readState/changed', ({ threadId, readState }) => applyEvent({ kind: 'readState', threadId, readState }));
  if (typeof document !== 'undefined') {
    // A result that arrived while the window was hidden is read once the person comes back to it.
    document.addEventListener('visibilitychange', () => {
      const { selectedId } = store.getState();
      if (selectedId !== null) markReadIfViewed(selectedId);
    });
  }
  client.on('turn/started', ({ threadId, turn }) => applyEvent({ kind: 'turnStarted', threadId, turn, at: nowSeconds() }));
  client.on('turn/completed', ({ threadId }) => patchThread(threadId, { updatedAt: nowSeconds() }));
  client.onReady(() => void store.getState().refresh());
  return store;
}

/** Follows the cursor until the runtime has no more pages. */
async function fetchAll(
  client: WheelhouseClient,
  filter: Pick<ParamsOf<'thread/list'>, 'archived'>,
): Promise<{ threads: Thread[]; readStates: Record<string, ThreadReadState> }> {
  const threads: Thread[] = [];
  const readStates: Record<string, ThreadReadState> = {};
  let cursor: string | null = null;
  do {
    const page: ResultOf<'thread/list'> = await client.request('thread/list', { ...filter, cursor, limit: PAGE_SIZE, sortKey: 'updated_at' });
    threads.push(...page.data);
    Object.assign(readStates, page.readStates);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return { threads, readStates };
}

function byId(threads: readonly Thread[]): Record<string, Thread> {
  return Object.fromEntries(threads.map((t) => [t.id, t]));
}

function assertNever(value: never): never {
  throw new Error(`unhandled thread event: ${JSON.stringify(value)}`);
}
