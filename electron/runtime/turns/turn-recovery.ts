import type { ThreadItem, TurnFailure } from '../../../shared/protocol/index.js';
import type { StateStore } from '../../store/state-store.js';
import type { EventLog } from '../event-log.js';
import { toWireTurn } from '../thread-mapper.js';

const STOPPED: TurnFailure = {
  kind: 'other',
  message: 'Wheelhouse stopped while this turn was running.',
  httpStatus: null,
  additionalDetails: null,
};

/**
 * After a crash or kill, turns that were running are marked interrupted with
 * a reason, and their threads idle — never left spinning forever. What was
 * acknowledged but not yet in thread order joins the thread: the text a reply
 * had streamed (as an incomplete message), then steer input. The log gets the
 * ending events a clean stop would have written, so replay shows an end.
 * All of it lands in one transaction. Returns the number of turns recovered.
 */
export function recoverInterruptedTurns(store: StateStore, events: EventLog, now: () => number): number {
  const at = now();
  // The turns' new status and their ending events land together.
  return events.commit(store, () => {
    for (const pending of store.pending.all()) {
      store.items.append(pending.threadId, pending.item);
      store.pending.delete(pending.item.id);
    }
    const stopped = store.db
      .prepare<[], { id: string }>("SELECT id FROM turns WHERE status = 'inProgress' ORDER BY started_at_ms, id")
      .all();
    if (stopped.length === 0) return 0;
    store.db
      .prepare("UPDATE turns SET status = 'interrupted', error = ?, completed_at_ms = ? WHERE status = 'inProgress'")
      .run(JSON.stringify(STOPPED), at);
    store.db.prepare("UPDATE threads SET status = 'idle' WHERE status = 'running'").run();
    for (const { id } of stopped) {
      const turn = store.turns.get(id)!;
      const items = store.items.list(turn.threadId).filter((item): item is ThreadItem => item.turnId === id && item.type !== 'forkMarker');
      const scope = { threadId: turn.threadId, turnId: id };
      events.publish('turn/completed', { threadId: turn.threadId, turn: toWireTurn(turn, items) }, scope);
      events.publish('thread/status/changed', { threadId: turn.threadId, status: { type: 'notLoaded' } }, scope);
    }
    return stopped.length;
  });
}
