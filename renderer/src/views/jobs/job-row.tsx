import { memo } from 'react';
import type { Job } from '../../../../shared/protocol/index.js';
import { attemptLabel, formatDuration, jobDurationMs, retryCountdown, STATUS_LABELS } from '../../format/job-format.js';
import { JobProgress } from './job-progress.js';
import { useSecond } from './use-second.js';

/** One line of the dashboard: name and command, status, progress with ETA, run x of y with the retry countdown, duration. */
export const JobRow = memo(function JobRow({ job, onOpen }: { readonly job: Job; readonly onOpen: (jobId: string) => void }) {
  const now = useSecond(job.status === 'running' || job.nextRetryAt !== null);
  const countdown = retryCountdown(job, now);
  return (
    <button type="button" className="job-row" data-testid="job-row" data-job-id={job.id} data-status={job.status} onClick={() => onOpen(job.id)}>
      <span className="job-row-name">
        <span className="job-row-title">{job.name}</span>
        <span className="job-row-command">{job.command}</span>
      </span>
      <span className="job-status" data-status={job.status} data-testid="job-status">
        {STATUS_LABELS[job.status]}
      </span>
      <JobProgress job={job} now={now} />
      <span className="job-row-attempt">
        {attemptLabel(job)}
        {countdown ? <span className="job-row-retry"> · {countdown}</span> : null}
      </span>
      <span className="job-row-duration">{job.runs > 0 ? formatDuration(jobDurationMs(job, now)) : '—'}</span>
    </button>
  );
});
