import type { ThreadItem } from '../../../shared/protocol/index.js';
import type { StateStore } from '../../store/state-store.js';

/** What the model and the person read about a patch the previous run left unfinished. */
export const PATCH_WAITED_WHEN_STOPPED = 'Not applied: Wheelhouse stopped while this patch waited for approval.';
export const PATCH_RAN_WHEN_STOPPED = 'Wheelhouse stopped while this patch was being applied; check the files it names.';

/**
 * At start, before the approval broker ends the leftovers of the previous
 * run: a `fileChange` item still `inProgress` belonged to a turn that is
 * gone. One whose approval was never answered (or was declined) ends
 * `declined`; one that was accepted (or needed no approval) ends `failed`,
 * since its files may have been written. Returns how many.
 */
export function endFileChangesOfEarlierRun(store: StateStore): number {
  const rows = store.db
    .prepare<[], { item: string }>("SELECT item FROM thread_items WHERE type = 'fileChange' AND item LIKE '%\"status\":\"inProgress\"%'")
    .all();
  let ended = 0;
  store.transaction(() => {
    for (const row of rows) {
      const item = JSON.parse(row.item) as ThreadItem;
      if (item.type !== 'fileChange' || item.status !== 'inProgress') continue;
      const approval = store.approvals.get(`approval-${item.id}`);
      const accepted = approval?.state === 'answered' && /^"accept/.test(approval.decision ?? '');
      const waited = approval !== null && !accepted;
      store.items.replace({
        ...item,
        status: waited ? 'declined' : 'failed',
        modelOutput: waited ? PATCH_WAITED_WHEN_STOPPED : PATCH_RAN_WHEN_STOPPED,
        ...(waited ? { outcome: { by: 'turnEnded' as const } } : {}),
      });
      ended += 1;
    }
  });
  return ended;
}
