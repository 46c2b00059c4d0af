import { memo } from 'react';
import type { Job } from '../../../../shared/protocol/index.js';
import { budgetLabel, isWaitingForApproval, jobStatusLabel, jobSubject } from '../../format/agent-job-format.js';
import { attemptLabel, formatDuration, jobDurationMs, retryCountdown } from '../../format/job-format.js';
import { JobProgress } from './job-progress.js';
import { useSecond } from './use-second.js';

/** One line of the dashboard: name and command (an agent's goal and budget used), status (or "waiting for approval"), progress with ETA, run x of y with the retry countdown, duration. */
export const JobRow = memo(function JobRow({ job, onOpen }: { readonly job: Job; readonly onOpen: (jobId: string) => void }) {
  const now = useSecond(job.status === 'running' || job.nextRetryAt !== null);
  const countdown = retryCountdown(job, now);
  const waiting = isWaitingForApproval(job);
  return (
    <button type="button" className="job-row" data-testid="job-row" data-job-id={job.id} data-status={job.status} onClick={() => onOpen(job.id)}>
      <span className="job-row-name">
        <span className="job-row-title">{job.name}</span>
        <span className={job.agent ? 'job-row-goal' : 'job-row-command'}>
          {jobSubject(job)}
          {job.agent ? <span className="job-row-budget"> · {budgetLabel(job.agent)}</span> : null}
        </span>
      </span>
      <span className="job-status" data-status={waiting ? 'waiting' : job.status} data-testid="job-status">
        {jobStatusLabel(job)}
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
