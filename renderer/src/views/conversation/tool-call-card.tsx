import { Check, ChevronRight, FileText, FolderTree, LoaderCircle, Search, Wrench, X, type LucideIcon } from 'lucide-react';
import { useState } from 'react';
import type { ConversationItem } from '../../stores/conversation-model.js';
import { formatArguments, labelToolCall } from '../../format/tool-calls.js';
import { formatDuration } from '../../format/usage.js';
import { useJobsStore } from '../../services.js';

type ToolCall = Extract<ConversationItem, { type: 'dynamicToolCall' }>;

const ICONS: Readonly<Record<string, LucideIcon>> = {
  read_file: FileText,
  list_directory: FolderTree,
  search_text: Search,
};

/** A tool the agent used: what, on what, how it went; expands to the arguments and the output. */
export function ToolCallCard({ item }: { readonly item: ToolCall }) {
  const [open, setOpen] = useState(false);
  const { title, subject } = labelToolCall(item.tool, item.arguments);
  const Icon = ICONS[item.tool] ?? Wrench;
  const status = item.status;
  const jobId = jobOfCall(item);
  const showJob = useJobsStore((s) => s.show);
  return (
    <div className="tool-call" data-testid="tool-call" data-status={status} data-open={open || undefined}>
      <button type="button" className="tool-call-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Icon size={14} strokeWidth={1.9} className="tool-call-icon" aria-hidden="true" />
        <span className="tool-call-title">{title}</span>
        {subject && <span className="tool-call-subject">{subject}</span>}
        <span className="tool-call-status">
          {item.durationMs !== null && status !== 'inProgress' && (
            <span className="tool-call-duration">{formatDuration(item.durationMs)}</span>
          )}
          <StatusIcon status={status} />
        </span>
        <ChevronRight size={14} strokeWidth={2} className="tool-call-chevron" aria-hidden="true" />
      </button>
      {jobId && (
        <button type="button" className="tool-call-job-link" data-testid="tool-call-job-link" onClick={() => showJob(jobId)}>
          Open job {jobId}
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
