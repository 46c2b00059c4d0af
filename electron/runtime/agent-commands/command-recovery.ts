import type { ThreadItem } from '../../../shared/protocol/index.js';
import type { StateStore } from '../../store/state-store.js';

/**
 * At start: a command item still `inProgress` belonged to a process of the
 * previous run, which is gone (the supervisor kills every tree on quit, and a
 * crash takes bwrap's `--die-with-parent` children along). It ends failed,
 * saying so, instead of looking like it still runs. Returns how many.
 */
export function endCommandsOfEarlierRun(store: StateStore): number {
  const rows = store.db
    .prepare<[], { item: string }>("SELECT item FROM thread_items WHERE type = 'commandExecution' AND item LIKE '%\"status\":\"inProgress\"%'")
    .all();
  let ended = 0;
  store.transaction(() => {
    for (const row of rows) {
      const item = JSON.parse(row.item) as ThreadItem;
      if (item.type !== 'commandExecution' || item.status !== 'inProgress') continue;
      const note = 'Wheelhouse stopped while this command ran.';
      store.items.replace({ ...item, status: 'failed', aggregatedOutput: item.aggregatedOutput ? `${item.aggregatedOutput}\n${note}` : note });
      ended += 1;
    }
  });
  return ended;
}
