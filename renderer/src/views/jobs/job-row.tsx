import { memo } from 'react';
import type { Job } from '../../../../shared/protocol/index.js';
import { budgetLabel, isWaitingForApproval, jobStatusLabel, jobSubject } from '../../format/agent-job-format.js';
import { attemptLabel, formatDuration, jobDurationMs, retryCountdown } from '../../format/job-format.js';
import { useMachinesStore } from '../../services/services.js';
import { allowedActions } from '../../stores/jobs-store.js';
import { machineName } from '../../stores/machines-store.js';
import { JOB_ACTIONS, runJobAction } from './job-actions.js';
import { JobProgress } from './job-progress.js';
import { useSecond } from './use-second.js';

/** The actions a row offers; Delete stays on the job page. */
const ROW_ACTIONS = JOB_ACTIONS.filter(({ action }) => action !== 'delete');

/**
 * One line of the dashboard: name, where it runs (another machine) and command (an agent's goal and budget used), status (or "waiting for approval"),
 * progress with ETA, which attempt with the retry countdown, duration, and pause / resume / cancel / retry.
 * The name opens the job (a click anywhere else on the row does too).
 */
export const JobRow = memo(function JobRow({ job, onOpen }: { readonly job: Job; readonly onOpen: (jobId: string) => void }) {
  const now = useSecond(job.status === 'running' || job.nextRetryAt !== null);
  const countdown = retryCountdown(job, now);
  const waiting = isWaitingForApproval(job);
  const allowed = allowedActions(job);
  const remote = job.environmentId !== undefined && job.environmentId !== 'local';
  const where = useMachinesStore((s) => (remote ? machineName(s.list, job.environmentId) : null));
  return (
    <div className="job-row" data-testid="job-row" data-job-id={job.id} data-status={job.status} onClick={() => onOpen(job.id)}>
      <button type="button" className="job-row-name" data-testid="job-row-open" onClick={(event) => {
        event.stopPropagation();
        onOpen(job.id);
      }}>
        <span className="job-row-title">{job.name}</span>
        <span className={job.agent ? 'job-row-goal' : 'job-row-command'}>
          {where !== null && (
            <span className="job-row-where" data-testid="job-row-where">
              on {where} ·{' '}
            </span>
          )}
          {jobSubject(job)}
          {job.agent ? <span className="job-row-budget"> · {budgetLabel(job.agent)}</span> : null}
        </span>
      </button>
      <span className="job-status" data-status={waiting ? 'waiting' : job.status} data-testid="job-status">
        {jobStatusLabel(job)}
      </span>
      <JobProgress job={job} now={now} />
      <span className="job-row-attempt">
        {attemptLabel(job)}
        {countdown ? <span className="job-row-retry"> · {countdown}</span> : null}
      </span>
      <span className="job-row-duration">{job.runs > 0 ? formatDuration(jobDurationMs(job, now)) : '—'}</span>
      <span className="job-row-actions">
        {ROW_ACTIONS.filter(({ action }) => allowed.has(action)).map(({ action, label, icon: Icon, danger }) => (
          <button
            key={action}
            type="button"
            className={danger ? 'icon-button job-action-danger' : 'icon-button'}
            aria-label={`${label} ${job.name}`}
            title={label}
            data-testid={`job-row-${action}`}
            onClick={(event) => {
              event.stopPropagation();
              void runJobAction(job, action);
            }}
          >
            <Icon size={14} aria-hidden="true" />
          </button>
        ))}
      </span>
    </div>
  );
});
