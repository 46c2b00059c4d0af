import type { ScheduleRun } from '../../../../shared/protocol/index.js';
import { SCHEDULE_HISTORY_LENGTH } from '../../../../shared/protocol/index.js';

const OUTCOME_WORDS: Record<ScheduleRun['outcome'], string> = {
  queued: 'waiting to start',
  running: 'running',
  paused: 'paused',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  missed: 'missed',
  skipped: 'skipped',
  refused: 'not run',
  deleted: 'its job was deleted',
};

/** The last 30 slots as coloured cells, oldest first; each opens its job when it has one. */
export function ScheduleStrip({ history, onOpenJob }: { readonly history: readonly ScheduleRun[]; readonly onOpenJob: (jobId: string) => void }) {
  const empty = SCHEDULE_HISTORY_LENGTH - history.length;
  return (
    <ol className="schedule-strip" aria-label={`Last ${history.length} runs, oldest first`} data-testid="schedule-strip">
      {Array.from({ length: empty }, (_, i) => (
        <li key={`empty-${i}`} className="schedule-cell schedule-cell-empty" aria-hidden="true" />
      ))}
      {history.map((run) => {
        const label = `${new Date(run.slotAt).toLocaleString()}: ${run.detail ?? OUTCOME_WORDS[run.outcome]}${run.trigger === 'runNow' ? ' (Run now)' : ''}`;
        return (
          <li key={run.slotAt} className={`schedule-cell schedule-cell-${run.outcome}`} data-outcome={run.outcome}>
            {run.jobId && run.outcome !== 'deleted' ? (
              <button type="button" className="schedule-cell-button" title={label} aria-label={label} onClick={() => onOpenJob(run.jobId!)} />
            ) : (
              <span className="schedule-cell-button" title={label} role="img" aria-label={label} />
            )}
          </li>
        );
      })}
    </ol>
  );
}
