import { ArrowLeft } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { Job, JobHistoryEntry } from '../../../../shared/protocol/index.js';
import { isWaitingForApproval, jobStatusLabel } from '../../format/agent-job-format.js';
import { currentDetail, formatDuration, jobDurationMs, jobStatusLine } from '../../format/job-format.js';
import { threadTitle } from '../../format/thread-labels.js';
import { useApprovalsStore, useJobsStore, useMachinesStore, useSchedulesStore, useThreadsStore } from '../../services/services.js';
import { machineName } from '../../stores/machines-store.js';
import { ApprovalCard } from '../conversation/approval-card.js';
import { allowedActions } from '../../stores/jobs-store.js';
import { AgentJobFacts, AgentJobWork } from './agent-job-panel.js';
import { JOB_ACTIONS, runJobAction } from './job-actions.js';
import { JobOutput } from './job-output.js';
import { JobProgress } from './job-progress.js';
import { useSecond } from './use-second.js';

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

/** One job: what it runs, where it stands and its controls, each attempt's output and the transition timeline. */
export function JobPage({ job }: { readonly job: Job }) {
  const show = useJobsStore((s) => s.show);
  const history = useJobsStore((s) => s.details[job.id]?.history);
  const now = useSecond(job.status === 'running' || job.nextRetryAt !== null);
  const allowed = allowedActions(job);
  const detail = currentDetail(job, history);
  const thread = useThreadsStore((s) => (job.threadId ? s.threads[job.threadId] : undefined));
  const selectThread = useThreadsStore((s) => s.select);
  const hide = useJobsStore((s) => s.hide);
  const schedule = useSchedulesStore((s) => (job.scheduleId ? s.schedules.get(job.scheduleId) : undefined));
  const schedulesLoaded = useSchedulesStore((s) => s.loaded);
  const loadSchedules = useSchedulesStore((s) => s.load);
  const showSchedule = useSchedulesStore((s) => s.show);
  useEffect(() => {
    if (job.scheduleId && !schedulesLoaded) void loadSchedules();
  }, [job.scheduleId, schedulesLoaded, loadSchedules]);
  const openThread = (threadId: string) => {
    selectThread(threadId);
    // Already the selected thread: selecting it again does not leave the dashboard by itself.
    hide();
  };
  // A job waiting for the person carries its own id as the request's item.
  const where = useMachinesStore((s) => machineName(s.list, job.environmentId));
  const slurmJobId = useJobsStore((s) => s.details[job.id]?.runs.at(-1)?.slurmJobId ?? null);
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
          {JOB_ACTIONS.filter(({ action }) => allowed.has(action)).map(({ action, label, icon: Icon, danger }) => (
            <button
              key={action}
              type="button"
              className={`button ${danger ? 'button-secondary job-action-danger' : 'button-secondary'}`}
              data-testid={`job-${action}`}
              onClick={() => void runJobAction(job, action)}
            >
              <Icon size={14} aria-hidden="true" />
              {label}
            </button>
          ))}
        </div>
      </header>
      <p className="job-status-line" data-testid="job-status-line">
        {jobStatusLine(job, null, now)}
        {detail ? (
          <>
            {' · '}
            <span data-testid="job-detail">{detail}</span>
          </>
        ) : null}
      </p>
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
              <dd>
                <CommandText command={job.command ?? ''} />
              </dd>
            </>
          )}
          <dt>Runs on</dt>
          <dd data-testid="job-runs-on">{where}</dd>
          {slurmJobId !== null && (
            <>
              <dt>Slurm job</dt>
              <dd className="job-mono" data-testid="job-slurm-id">
                {slurmJobId}
              </dd>
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
          {job.scheduleId && (
            <>
              <dt>Schedule</dt>
              <dd>
                <button type="button" className="job-thread-link" data-testid="job-schedule-link" onClick={() => showSchedule(job.scheduleId)}>
                  {schedule ? schedule.name : 'its schedule (deleted)'}
                </button>
              </dd>
            </>
          )}
          <dt>Running time</dt>
          <dd>{job.runs > 0 ? formatDuration(jobDurationMs(job, now)) : 'not started'}</dd>
          {job.exitCode !== null && (
            <>
              <dt>Exit code</dt>
              <dd>{job.exitCode}</dd>
            </>
          )}
        </dl>
      </div>
      <div className="job-body">
        <div className="job-output">
          {job.agent ? (
            <>
              <h2 className="job-section-title">Work</h2>
              <AgentJobWork job={job} agent={job.agent} />
            </>
          ) : job.runs > 0 ? (
            <JobOutput job={job} />
          ) : (
            <>
              <h2 className="job-section-title">Output</h2>
              <p className="job-waiting">{approval ? 'Waiting for your approval to start.' : 'Waiting for a free slot to start.'}</p>
            </>
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

/** Past this many characters a command shows its first lines, and a button shows the rest. */
const LONG_COMMAND = 240;

function CommandText({ command }: { readonly command: string }) {
  const [whole, setWhole] = useState(false);
  const long = command.length > LONG_COMMAND || command.split('\n').length > 3;
  return (
    <>
      <span className="job-mono job-command" data-clamped={(long && !whole) || undefined}>
        {command}
      </span>
      {long ? (
        <button type="button" className="button-link job-command-toggle" aria-expanded={whole} onClick={() => setWhole(!whole)}>
          {whole ? 'Show less' : 'Show the whole command'}
        </button>
      ) : null}
    </>
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
