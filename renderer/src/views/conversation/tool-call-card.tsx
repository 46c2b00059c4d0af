import { Check, ChevronRight, CircleSlash, FileText, FolderTree, LoaderCircle, Search, ShieldQuestion, Wrench, X, type LucideIcon } from 'lucide-react';
import { useState } from 'react';
import type { ConversationItem } from '../../stores/conversation-model.js';
import type { Job } from '../../../../shared/protocol/index.js';
import { formatArguments, labelToolCall } from '../../format/tool-calls.js';
import { formatDuration } from '../../format/usage.js';
import { useApprovalsStore, useJobsStore } from '../../services/services.js';

type ToolCall = Extract<ConversationItem, { type: 'dynamicToolCall' }>;

const ICONS: Readonly<Record<string, LucideIcon>> = {
  read_file: FileText,
  list_directory: FolderTree,
  search_text: Search,
};

/** A tool the agent used: what, on what, how it went; expands to the arguments and the output. */
export function ToolCallCard({ item }: { readonly item: ToolCall }) {
  const [open, setOpen] = useState(false);
  const label = labelToolCall(item.tool, item.arguments);
  const Icon = ICONS[item.tool] ?? Wrench;
  const jobId = jobOfCall(item);
  const showJob = useJobsStore((s) => s.show);
  const job = useJobsStore((s) => (jobId ? s.jobs.get(jobId) : undefined));
  // A job the agent started waits for the person before it runs: the card must not look started until then.
  const jobWaiting = useApprovalsStore((s) => jobId !== null && s.pending.some((p) => p.kind === 'command' && p.jobId === jobId));
  const jobStart = item.tool === 'job_start' && item.status === 'completed' ? jobStartState(jobWaiting, job) : null;
  const title = jobStart ? JOB_START_TITLES[jobStart] : label.title;
  const subject = label.subject;
  const status = item.status;
  const jobName = job?.name ?? jobNameOf(item);
  return (
    <div className="tool-call" data-testid="tool-call" data-status={jobStart === 'waiting' ? 'waiting' : status} data-open={open || undefined}>
      <button type="button" className="tool-call-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Icon size={14} strokeWidth={1.9} className="tool-call-icon" aria-hidden="true" />
        <span className="tool-call-title">{title}</span>
        {subject && <span className="tool-call-subject">{subject}</span>}
        <span className="tool-call-status">
          {item.durationMs !== null && status !== 'inProgress' && (
            <span className="tool-call-duration">{formatDuration(item.durationMs)}</span>
          )}
          {jobStart === 'waiting' ? (
            <ShieldQuestion size={14} strokeWidth={2} className="tool-call-waiting" aria-label="Waiting for your approval" role="img" />
          ) : jobStart === 'notStarted' ? (
            <CircleSlash size={14} strokeWidth={2} aria-label="Not started" role="img" />
          ) : (
            <StatusIcon status={status} />
          )}
        </span>
        <ChevronRight size={14} strokeWidth={2} className="tool-call-chevron" aria-hidden="true" />
      </button>
      {jobId && (
        <button type="button" className="tool-call-job-link" data-testid="tool-call-job-link" title={jobId} onClick={() => showJob(jobId)}>
          {jobStart === 'waiting' ? 'Review and approve' : 'Open job'} {jobName ? `“${jobName}”` : ''}
        </button>
      )}
      {open && (
        <div className="tool-call-body">
          <div className="tool-call-section">
            <span className="tool-call-section-label">
              {item.tool}
              {' · arguments'}
            </span>
            <pre className="tool-call-pre">{formatArguments(item.arguments)}</pre>
          </div>
          <div className="tool-call-section">
            <span className="tool-call-section-label">{status === 'failed' ? 'Error' : 'Output'}</span>
            <pre className="tool-call-pre tool-call-output">
              {item.output ?? (status === 'inProgress' ? 'Running…' : '(no output)')}
            </pre>
          </div>
        </div>
      )}
    </div>
  );
}

type JobStartState = 'waiting' | 'started' | 'notStarted';

const JOB_START_TITLES: Readonly<Record<JobStartState, string>> = {
  waiting: 'Waiting for your approval to start a background job',
  started: 'Started a background job',
  notStarted: 'Background job not started',
};

/** Where a job the agent asked for stands: waiting for the person, refused before it ran, or started. */
function jobStartState(waiting: boolean, job: Job | undefined): JobStartState {
  if (waiting) return 'waiting';
  return job?.status === 'cancelled' && job.runs === 0 ? 'notStarted' : 'started';
}

/** The job's name as job_start reported it (`Started background job <id> ("<name>")`), for a job this window has not loaded. */
function jobNameOf(item: ToolCall): string | null {
  return /Started background job \S+ \("(.*)"\)/.exec(item.output ?? '')?.[1] ?? null;
}

/** The background job a job_start / job_status / job_output call is about, if any. */
function jobOfCall(item: ToolCall): string | null {
  if (item.tool === 'job_start') return /Started background job (job-\S+) /.exec(item.output ?? '')?.[1] ?? null;
  if (item.tool !== 'job_status' && item.tool !== 'job_output') return null;
  const args = item.arguments;
  const jobId = typeof args === 'object' && args !== null ? (args as { jobId?: unknown }).jobId : undefined;
  return typeof jobId === 'string' ? jobId : null;
}

function StatusIcon({ status }: { readonly status: ToolCall['status'] }) {
  switch (status) {
    case 'inProgress':
      return <LoaderCircle size={14} strokeWidth={2} className="spin" aria-label="Running" role="img" />;
    case 'completed':
      return <Check size={14} strokeWidth={2.4} className="tool-call-ok" aria-label="Done" role="img" />;
    case 'failed':
      return <X size={14} strokeWidth={2.4} className="tool-call-failed" aria-label="Failed" role="img" />;
    default: {
      const unknown: never = status;
      return unknown;
    }
  }
}
