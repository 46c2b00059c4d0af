import type { Thread } from '../../../shared/protocol/thread.js';
import type { ThreadsState } from './threads-store.js';

/**
 * Threads in the main list, most recently active first. Timestamps are whole
 * seconds, so ties are common; the id settles them the way the runtime's
 * thread/list does, so the order is the same after a reload.
 */
export function selectActiveThreads(state: ThreadsState): Thread[] {
  return Object.values(state.threads)
    .filter((t) => !t.archived)
    .sort((a, b) => b.updatedAt - a.updatedAt || b.createdAt - a.createdAt || byIdDescending(a, b));
}

function byIdDescending(a: Thread, b: Thread): number {
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Archived threads, most recently archived first. */
export function selectArchivedThreads(state: ThreadsState): Thread[] {
  return Object.values(state.threads)
    .filter((t) => t.archived)
    .sort((a, b) => (b.archivedAt ?? 0) - (a.archivedAt ?? 0) || b.updatedAt - a.updatedAt || byIdDescending(a, b));
}

/** The thread open in the conversation pane, if it is known. */
export function selectSelectedThread(state: ThreadsState): Thread | null {
  return state.selectedId === null ? null : (state.threads[state.selectedId] ?? null);
}
