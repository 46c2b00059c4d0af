import type { StateStore } from '../../store/state-store.js';

/**
 * After a crash or kill, turns that were running are marked interrupted with
 * a reason, and their threads idle — never left spinning forever.
 */
export function recoverInterruptedTurns(store: StateStore, now: () => number): number {
  const at = now();
  const error = JSON.stringify({
    kind: 'other',
    message: 'Wheelhouse stopped while this turn was running.',
    httpStatus: null,
    additionalDetails: null,
  });
  return store.transaction(() => {
    const changed = store.db
      .prepare("UPDATE turns SET status = 'interrupted', error = ?, completed_at_ms = ? WHERE status = 'inProgress'")
      .run(error, at).changes;
    store.db.prepare("UPDATE threads SET status = 'idle' WHERE status = 'running'").run();
    return changed;
  });
}
