import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { QueuedTurn } from '../../../shared/protocol/methods/queue.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { showRequestError } from './toast-store.js';

export interface QueueState {
  /** Visible queued turns by thread id, in queue order, for threads whose queue was listed; absent: not listed. */
  readonly queues: Readonly<Record<string, readonly QueuedTurn[]>>;
  /** How many visible queued turns each thread has (the sidebar); threads with none are absent. */
  readonly counts: Readonly<Record<string, number>>;
  /** Fetches a thread's whole visible queue; `quiet` shows no error toast. */
  load(threadId: string, options?: { readonly quiet?: boolean }): Promise<void>;
  /** Fetches every thread's count in one request (on each connect). */
  loadCounts(): Promise<void>;
  /** Queues a message; resolves false when it was not queued (the caller keeps the draft). */
  add(threadId: string, text: string): Promise<boolean>;
  remove(threadId: string, queuedTurnId: string): Promise<void>;
  /** Moves a row to `toIndex`; the new order shows at once and is undone if the runtime refuses it. */
  move(threadId: string, queuedTurnId: string, toIndex: number): Promise<void>;
  /** Replaces a row's text; resolves false when it could not be saved. */
  edit(threadId: string, queuedTurnId: string, text: string): Promise<boolean>;
}

const PAGE = 100;

/** How long after its last move a thread still treats replies showing an older order of its own as echoes. */
const ECHO_WINDOW_MS = 2_000;

const orderKey = (rows: readonly QueuedTurn[]): string => rows.map((row) => row.id).join('\n');

/**
 * The orders this window asked for, per thread, oldest first. Moves made in
 * quick succession (↑ then ↓) each get an answer and a thread/queue/changed;
 * those of a superseded move can arrive after the newer move was shown
 * (notifications are batched, answers are not) and would put the old order
 * back for a moment, long enough for a click to land on the wrong card. A
 * reply showing an order this window asked for before its latest one is such
 * an echo and is skipped; anything else (a row started, another window's
 * move) applies.
 */
class AskedOrders {
  private readonly asked = new Map<string, { keys: string[]; at: number }>();

  constructor(private readonly now: () => number) {}

  ask(threadId: string, rows: readonly QueuedTurn[]): void {
    const entry = this.current(threadId) ?? { keys: [], at: 0 };
    entry.keys.push(orderKey(rows));
    entry.at = this.now();
    this.asked.set(threadId, entry);
  }

  isEcho(threadId: string, rows: readonly QueuedTurn[]): boolean {
    const entry = this.current(threadId);
    if (!entry) return false;
    const index = entry.keys.lastIndexOf(orderKey(rows));
    return index >= 0 && index < entry.keys.length - 1;
  }

  private current(threadId: string): { keys: string[]; at: number } | undefined {
    const entry = this.asked.get(threadId);
    if (entry && this.now() - entry.at > ECHO_WINDOW_MS) {
      this.asked.delete(threadId);
      return undefined;
    }
    return entry;
  }
}

/**
 * Which threads' queues a thread/queue/changed has reported, and when (a
 * counter, not a clock). A reply to a request sent before the latest
 * notification of its thread is older than what the window shows (the
 * runtime announces a change before it answers), so it is not applied.
 */
class Notified {
  private tick = 0;
  private readonly at = new Map<string, number>();

  /** The moment a request is sent. */
  now(): number {
    return this.tick;
  }

  saw(threadId: string): void {
    this.at.set(threadId, ++this.tick);
  }

  /** True when nothing was reported about `threadId` since `asOf`. */
  quietSince(threadId: string, asOf: number): boolean {
    return (this.at.get(threadId) ?? 0) <= asOf;
  }
}

/** `counts` with `threadId` at `count` (absent at zero); the same object when nothing changes. */
function withCount(counts: Readonly<Record<string, number>>, threadId: string, count: number): Readonly<Record<string, number>> {
  if ((counts[threadId] ?? 0) === count) return counts;
  const next = { ...counts };
  if (count > 0) next[threadId] = count;
  else delete next[threadId];
  return next;
}

/**
 * Each thread's queued turns (thread/queue/*). The sidebar needs only counts:
 * one thread/queue/counts per connection, however many threads; a thread's
 * rows are listed when its queue panel opens. thread/queue/changed (the whole
 * visible queue) and this window's own changes keep both current.
 */
export function createQueueStore(client: WheelhouseClient, now: () => number = Date.now): UseBoundStore<StoreApi<QueueState>> {
  const asked = new AskedOrders(now);
  const notified = new Notified();
  const store = create<QueueState>()((set, get) => {
    /** A thread's whole visible queue, from the runtime or this window's own change. */
    const put = (threadId: string, rows: readonly QueuedTurn[]) =>
      set((state) => ({ queues: { ...state.queues, [threadId]: rows }, counts: withCount(state.counts, threadId, rows.length) }));
    return {
      queues: {},
      counts: {},
      load: async (threadId, options) => {
        const asOf = notified.now();
        try {
          const rows: QueuedTurn[] = [];
          let cursor: string | null = null;
          do {
            const page: { data: QueuedTurn[]; nextCursor: string | null } = await client.request('thread/queue/list', {
              threadId,
              cursor,
              limit: PAGE,
            });
            rows.push(...page.data);
            cursor = page.nextCursor;
          } while (cursor !== null);
          if (notified.quietSince(threadId, asOf)) put(threadId, rows);
        } catch (error) {
          if (!options?.quiet) showRequestError(error);
        }
      },
      loadCounts: async () => {
        const asOf = notified.now();
        try {
          const { counts } = await client.request('thread/queue/counts', {});
          set((state) => {
            const next: Record<string, number> = {};
            for (const [threadId, count] of Object.entries(counts)) if (notified.quietSince(threadId, asOf)) next[threadId] = count;
            // A thread reported on meanwhile keeps what the report said.
            for (const [threadId, count] of Object.entries(state.counts)) if (!notified.quietSince(threadId, asOf)) next[threadId] = count;
            return { counts: next };
          });
        } catch {
          // Counts are a hint in the sidebar; the next connect fetches them again.
        }
      },
      add: async (threadId, text) => {
        const asOf = notified.now();
        try {
          const { queuedSubmission } = await client.request('thread/queue/add', {
            threadId,
            turnStartParams: { threadId, input: [{ type: 'text', text }] },
          });
          // Show the row at once unless a notification already told the story (it may have started by now).
          if (notified.quietSince(threadId, asOf)) {
            const rows = get().queues[threadId];
            if (rows) put(threadId, [...rows, queuedSubmission]);
            else set((state) => ({ counts: withCount(state.counts, threadId, (state.counts[threadId] ?? 0) + 1) }));
          }
          return true;
        } catch (error) {
          showRequestError(error);
          return false;
        }
      },
      remove: async (threadId, queuedTurnId) => {
        const asOf = notified.now();
        try {
          const { deleted } = await client.request('thread/queue/delete', { threadId, queuedTurnId });
          const rows = get().queues[threadId];
          if (deleted && rows && notified.quietSince(threadId, asOf)) put(threadId, rows.filter((row) => row.id !== queuedTurnId));
        } catch (error) {
          showRequestError(error);
        }
      },
      move: async (threadId, queuedTurnId, toIndex) => {
        const before = get().queues[threadId] ?? [];
        const from = before.findIndex((q) => q.id === queuedTurnId);
        if (from < 0 || toIndex < 0 || toIndex >= before.length || toIndex === from) return;
        const next = [...before];
        const [moved] = next.splice(from, 1);
        next.splice(toIndex, 0, moved!);
        asked.ask(threadId, next);
        put(threadId, next);
        try {
          const { queuedTurns } = await client.request('thread/queue/reorder', {
            threadId,
            queuedTurnIds: next.map((q) => q.id),
          });
          if (!asked.isEcho(threadId, queuedTurns)) put(threadId, queuedTurns);
        } catch (error) {
          // The queue moved under us (a row started or was deleted): show what the runtime has.
          showRequestError(error);
          await get().load(threadId);
        }
      },
      edit: async (threadId, queuedTurnId, text) => {
        try {
          await client.request('thread/queue/update', {
            threadId,
            queuedTurnId,
            input: [{ type: 'text', text }],
          });
          return true;
        } catch (error) {
          showRequestError(error);
          return false;
        }
      },
    };
  });
  client.on('thread/queue/changed', ({ threadId, queuedTurns }) => {
    notified.saw(threadId);
    if (asked.isEcho(threadId, queuedTurns)) return;
    store.setState((state) => ({
      // Rows are kept only for queues this window listed (an open panel); every other thread needs just its count.
      queues: threadId in state.queues ? { ...state.queues, [threadId]: queuedTurns } : state.queues,
      counts: withCount(state.counts, threadId, queuedTurns.length),
    }));
  });
  // Rows may have started or failed while the link was down.
  client.onReady(() => {
    void store.getState().loadCounts();
    for (const threadId of Object.keys(store.getState().queues)) void store.getState().load(threadId, { quiet: true });
  });
  return store;
}

/** The text a queued turn will send. */
export function queuedText(queued: QueuedTurn): string {
  return queued.turnStartParams.input.map((i) => i.text).join('\n');
}
