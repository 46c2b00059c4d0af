import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { ThreadGoal, ThreadGoalStatus } from '../../../shared/protocol/thread.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { showRequestError } from './toast-store.js';

/** What the goal editor saves. */
export interface GoalDraft {
  readonly objective: string;
  /** null: no token limit. */
  readonly tokenBudget: number | null;
}

/** The outcome of a save: the editor keeps its text and shows the message when it failed. */
export type GoalSaveOutcome = { readonly ok: true } | { readonly ok: false; readonly message: string };

export interface GoalState {
  /** Goals by thread id; undefined: not fetched yet, null: the thread has none. */
  readonly goals: Readonly<Record<string, ThreadGoal | null>>;
  /** The thread whose goal editor is open, if any. */
  readonly editing: string | null;
  openEditor(threadId: string): void;
  closeEditor(): void;
  /** Fetches a thread's goal (when its conversation opens). */
  load(threadId: string): Promise<void>;
  save(threadId: string, draft: GoalDraft): Promise<GoalSaveOutcome>;
  setStatus(threadId: string, status: ThreadGoalStatus): Promise<void>;
  clear(threadId: string): Promise<void>;
}

/** Thread goals (objective, token budget, usage), kept current by goal notifications. */
export function createGoalStore(client: WheelhouseClient): UseBoundStore<StoreApi<GoalState>> {
  const store = create<GoalState>()((set) => {
    const put = (threadId: string, goal: ThreadGoal | null) =>
      set((state) => ({ goals: { ...state.goals, [threadId]: goal } }));
    return {
      goals: {},
      editing: null,
      openEditor: (threadId) => set({ editing: threadId }),
      closeEditor: () => set({ editing: null }),
      load: async (threadId) => {
        try {
          const { goal } = await client.request('thread/goal/get', { threadId });
          put(threadId, goal);
        } catch (error) {
          showRequestError(error);
        }
      },
      save: async (threadId, draft) => {
        const objective = draft.objective.trim();
        if (objective.length === 0) return { ok: false, message: 'Describe what the agent should achieve.' };
        try {
          const { goal } = await client.request('thread/goal/set', { threadId, objective, tokenBudget: draft.tokenBudget });
          put(threadId, goal);
          return { ok: true };
        } catch (error) {
          return { ok: false, message: error instanceof Error ? error.message : String(error) };
        }
      },
      setStatus: async (threadId, status) => {
        try {
          const { goal } = await client.request('thread/goal/set', { threadId, status });
          put(threadId, goal);
        } catch (error) {
          showRequestError(error);
        }
      },
      clear: async (threadId) => {
        try {
          await client.request('thread/goal/clear', { threadId });
          put(threadId, null);
        } catch (error) {
          showRequestError(error);
        }
      },
    };
  });
  client.on('thread/goal/updated', ({ threadId, goal }) =>
    store.setState((state) => ({ goals: { ...state.goals, [threadId]: goal } })),
  );
  client.on('thread/goal/cleared', ({ threadId }) =>
    store.setState((state) => ({ goals: { ...state.goals, [threadId]: null } })),
  );
  // Usage may have moved while the link was down; refetch the goals on screen.
  client.onReady(() => {
    for (const threadId of Object.keys(store.getState().goals)) void store.getState().load(threadId);
  });
  return store;
}
