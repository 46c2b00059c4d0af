import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { QueuedTurn } from '../../../shared/protocol/methods/queue.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { showRequestError } from './toast-store.js';

export interface QueueState {
  /** Visible queued turns by thread id, in queue order; absent: not fetched yet. */
  readonly queues: Readonly<Record<string, readonly QueuedTurn[]>>;
  /** Fetches a thread's whole visible queue; `quiet` (sidebar counts) shows no error toast. */
  load(threadId: string, options?: { readonly quiet?: boolean }): Promise<void>;
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

/** Each thread's queued turns (thread/queue/*), kept current by thread/queue/changed. */
export function createQueueStore(client: WheelhouseClient, now: () => number = Date.now): UseBoundStore<StoreApi<QueueState>> {
  const asked = new AskedOrders(now);
  const store = create<QueueState>()((set, get) => {
    const put = (threadId: string, rows: readonly QueuedTurn[]) =>
      set((state) => ({ queues: { ...state.queues, [threadId]: rows } }));
    return {
      queues: {},
      load: async (threadId, options) => {
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
          put(threadId, rows);
        } catch (error) {
          if (!options?.quiet) showRequestError(error);
        }
      },
      add: async (threadId, text) => {
        try {
          await client.request('thread/queue/add', {
            threadId,
            turnStartParams: { threadId, input: [{ type: 'text', text }] },
          });
          return true;
        } catch (error) {
          showRequestError(error);
          return false;
        }
      },
      remove: async (threadId, queuedTurnId) => {
        try {
          await client.request('thread/queue/delete', { threadId, queuedTurnId });
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
    if (asked.isEcho(threadId, queuedTurns)) return;
    store.setState((state) => ({ queues: { ...state.queues, [threadId]: queuedTurns } }));
  });
  // Rows may have started or failed while the link was down.
  client.onReady(() => {
    for (const threadId of Object.keys(store.getState().queues)) void store.getState().load(threadId, { quiet: true });
  });
  return store;
}

/** The text a queued turn will send. */
export function queuedText(queued: QueuedTurn): string {
  return queued.turnStartParams.input.map((i) => i.text).join('\n');
}
