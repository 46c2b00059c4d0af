import { ArrowLeft, Pause, Play, RotateCcw, Square, Trash2 } from 'lucide-react';
import type { Job, JobHistoryEntry } from '../../../../shared/protocol/index.js';
import { isWaitingForApproval, jobStatusLabel } from '../../format/agent-job-format.js';
import { attemptLabel, formatDuration, jobDurationMs, retryCountdown } from '../../format/job-format.js';
import { threadTitle } from '../../format/thread-labels.js';
import { useApprovalsStore, useJobsStore, useThreadsStore } from '../../services.js';
import { ApprovalCard } from '../conversation/approval-card.js';
import { allowedActions, type JobAction } from '../../stores/jobs-store.js';
import { AgentJobFacts, AgentJobWork } from './agent-job-panel.js';
import { JobProgress } from './job-progress.js';
import { JobTerminal } from './job-terminal.js';
import { useSecond } from './use-second.js';

const ACTIONS: ReadonlyArray<{ action: JobAction; label: string; icon: typeof Pause; danger?: boolean }> = [
  { action: 'pause', label: 'Pause', icon: Pause },
  { action: 'resume', label: 'Resume', icon: Play },
  { action: 'retry', label: 'Retry now', icon: RotateCcw },
  { action: 'cancel', label: 'Cancel', icon: Square, danger: true },
  { action: 'delete', label: 'Delete', icon: Trash2, danger: true },
];

const PHASES: Readonly<Record<string, string>> = {
  created: 'Created',
  running: 'Started',
  progress_updated: 'Progress',
  paused: 'Paused',
  resumed: 'Resumed',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
  retrying: 'Retry started',
  retry_requested: 'Retry requested',
  queued_after_resume: 'Re-queued after restart',
  reattached: 'Picked up again after restart',
  approved: 'Approved',
  interrupted: 'Interrupted',
  waiting_for_approval: 'Waiting for approval',
  approval_settled: 'Approval answered',
};

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** One job: what it runs, its state and controls, the live terminal and the transition timeline. */
export function JobPage({ job }: { readonly job: Job }) {
  const act = useJobsStore((s) => s.act);
  const show = useJobsStore((s) => s.show);
  const history = useJobsStore((s) => s.details[job.id]?.history);
  const now = useSecond(job.status === 'running' || job.nextRetryAt !== null);
  const allowed = allowedActions(job);
  const countdown = retryCountdown(job, now);
  const thread = useThreadsStore((s) => (job.threadId ? s.threads[job.threadId] : undefined));
  const selectThread = useThreadsStore((s) => s.select);
  const hide = useJobsStore((s) => s.hide);
  const openThread = (threadId: string) => {
    selectThread(threadId);
    // Already the selected thread: selecting it again does not leave the dashboard by itself.
    hide();
  };
  // A job waiting for the person carries its own id as the request's item.
  const approval = useApprovalsStore((s) => s.pending.find((request) => request.kind === 'command' && request.params.itemId === job.id));

  return (
    <section className="job-page" aria-label={`Job ${job.name}`} data-testid="job-page" data-status={job.status}>
      <header className="job-page-head">
        <button type="button" className="icon-button" aria-label="All jobs" title="All jobs" data-testid="job-back" onClick={() => show(null)}>
          <ArrowLeft size={16} aria-hidden="true" />
        </button>
        <h1 className="job-page-title">{job.name}</h1>
        <span className="job-status" data-status={isWaitingForApproval(job) ? 'waiting' : job.status} data-testid="job-page-status">
          {jobStatusLabel(job)}
        </span>
        <div className="job-actions">
          {ACTIONS.filter(({ action }) => allowed.has(action)).map(({ action, label, icon: Icon, danger }) => (
            <button
              key={action}
              type="button"
              className={`button ${danger ? 'button-secondary job-action-danger' : 'button-secondary'}`}
              data-testid={`job-${action}`}
              onClick={() => void act(job.id, action)}
            >
              <Icon size={14} aria-hidden="true" />
              {label}
            </button>
          ))}
        </div>
      </header>
      {approval?.kind === 'command' && (
        <div className="job-approval" data-testid="job-approval">
          <ApprovalCard approval={approval} />
        </div>
      )}
      <div className="job-summary">
        <JobProgress job={job} now={now} />
        <dl className="job-facts">
          {job.agent ? (
            <AgentJobFacts job={job} agent={job.agent} />
          ) : (
            <>
              <dt>Command</dt>
              <dd className="job-mono">{job.command}</dd>
            </>
          )}
          <dt>Folder</dt>
          <dd className="job-mono">{job.cwd}</dd>
          {!job.agent && job.threadId && (
            <>
              <dt>Started in</dt>
              <dd>
                <button type="button" className="job-thread-link" data-testid="job-thread-link" onClick={() => openThread(job.threadId!)}>
                  {thread ? threadTitle(thread) : 'its thread'}
                </button>
              </dd>
            </>
          )}
          <dt>Runs</dt>
          <dd>
            {attemptLabel(job)}
            {countdown ? ` · ${countdown}` : ''}
          </dd>
          <dt>Running time</dt>
          <dd>{job.runs > 0 ? formatDuration(jobDurationMs(job, now)) : 'not started'}</dd>
          {job.exitCode !== null && (
            <>
              <dt>Exit code</dt>
              <dd>{job.exitCode}</dd>
            </>
          )}
          {job.detail && (
            <>
              <dt>Detail</dt>
              <dd data-testid="job-detail">{job.detail}</dd>
            </>
          )}
        </dl>
      </div>
      <div className="job-body">
        <div className="job-output">
          <h2 className="job-section-title">
            {job.agent ? 'Work' : 'Output'}
            {job.runs > 1 ? ` · run ${job.runs}` : ''}
          </h2>
          {job.agent ? (
            <AgentJobWork job={job} agent={job.agent} />
          ) : job.runs > 0 ? (
            <JobTerminal key={`${job.id}:${job.runs}`} jobId={job.id} run={job.runs} />
          ) : (
            <p className="job-waiting">{approval ? 'Waiting for your approval to start.' : 'Waiting for a free slot to start.'}</p>
          )}
        </div>
        <aside className="job-timeline" aria-label="Timeline">
          <h2 className="job-section-title">Timeline</h2>
          <ol data-testid="job-timeline">
            {[...(history ?? [])].reverse().map((entry, index) => (
              <TimelineEntry key={`${entry.at}-${index}`} entry={entry} />
            ))}
          </ol>
        </aside>
      </div>
    </section>
  );
}

function TimelineEntry({ entry }: { readonly entry: JobHistoryEntry }) {
  return (
    <li className="job-timeline-entry" data-status={entry.status}>
      <span className="job-timeline-dot" aria-hidden="true" />
      <span className="job-timeline-phase">{PHASES[entry.phase] ?? entry.phase}</span>
      <time className="job-timeline-time" dateTime={new Date(entry.at).toISOString()}>
        {timeFormat.format(entry.at)}
      </time>
      {entry.phase === 'progress_updated' && entry.progress !== null ? <span className="job-timeline-detail">{entry.progress}%</span> : null}
      {entry.detail && entry.phase !== 'progress_updated' && entry.detail.toLowerCase() !== (PHASES[entry.phase] ?? '').toLowerCase() ? (
        <span className="job-timeline-detail">{entry.detail}</span>
      ) : null}
    </li>
  );
}
