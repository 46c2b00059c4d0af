import type { Job } from '../../../../shared/protocol/index.js';
import { etaLabel } from '../../format/job-format.js';

/** A bar with the percentage and ETA; an indeterminate stripe while a running job cannot tell. */
export function JobProgress({ job, now }: { readonly job: Job; readonly now: number }) {
  const indeterminate = job.progress === null && job.status === 'running';
  const percent = job.progress ?? 0;
  const eta = etaLabel(job, now);
  return (
    <span className="job-progress" data-status={job.status}>
      <span
        className="job-progress-track"
        role="progressbar"
        aria-label={`Progress of ${job.name}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={indeterminate ? undefined : percent}
        data-indeterminate={indeterminate || undefined}
      >
        <span className="job-progress-fill" style={indeterminate ? undefined : { width: `${percent}%` }} />
      </span>
      <span className="job-progress-label" data-testid="job-progress-label">
        {indeterminate ? 'working…' : `${percent}%`}
        {eta ? ` · ${eta}` : ''}
      </span>
    </span>
  );
}
