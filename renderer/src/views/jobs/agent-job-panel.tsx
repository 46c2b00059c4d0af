import { MessageSquare, ShieldAlert } from 'lucide-react';
import type { Job, JobAgent } from '../../../../shared/protocol/index.js';
import { timeLabel, tokensLabel } from '../../format/agent-job-format.js';
import { useJobsStore, useThreadsStore } from '../../services.js';
import { APPROVAL_CHOICES } from './agent-job-fields.js';

const GOAL_LABELS: Readonly<Record<NonNullable<JobAgent['goalStatus']>, string>> = {
  active: 'Active',
  paused: 'Paused',
  blocked: 'Blocked',
  usageLimited: 'Usage limited',
  budgetLimited: 'Budget spent',
  complete: 'Complete',
};

/** Opens the job's conversation (the Jobs dashboard gives way to it). */
function useOpenThread(threadId: string | null): (() => void) | null {
  const select = useThreadsStore((s) => s.select);
  const hideJobs = useJobsStore((s) => s.hide);
  // Hiding matters when the thread is already the selected one (selecting it again changes nothing).
  return threadId
    ? () => {
        select(threadId);
        hideJobs();
      }
    : null;
}

/** An agent job's goal, budget used and approvals, as facts beside the common ones. */
export function AgentJobFacts({ job, agent }: { readonly job: Job; readonly agent: JobAgent }) {
  const openThread = useOpenThread(job.threadId);
  const policy = APPROVAL_CHOICES.find((choice) => choice.value === agent.approvalPolicy)?.label ?? agent.approvalPolicy;
  return (
    <>
      <dt>Goal</dt>
      <dd data-testid="job-objective-fact">{agent.objective}</dd>
      <dt>Goal status</dt>
      <dd>{agent.goalStatus ? GOAL_LABELS[agent.goalStatus] : '—'}</dd>
      <dt>Tokens</dt>
      <dd data-testid="job-tokens">{tokensLabel(agent)}</dd>
      <dt>Time</dt>
      <dd>{timeLabel(agent)}</dd>
      <dt>Turns</dt>
      <dd>{agent.turns}</dd>
      <dt>Approvals</dt>
      <dd>
        {policy}
        {agent.allowCommands.length > 0 ? ` · may always run: ${agent.allowCommands.join(', ')}` : ''}
      </dd>
      <dt>Conversation</dt>
      <dd>
        {openThread ? (
          <button type="button" className="job-thread-link" data-testid="job-thread-link" onClick={openThread}>
            <MessageSquare size={13} aria-hidden="true" />
            Open the conversation
          </button>
        ) : (
          '—'
        )}
      </dd>
    </>
  );
}

/** Where a command job shows its terminal, an agent job shows what it waits for and where its work is. */
export function AgentJobWork({ job, agent }: { readonly job: Job; readonly agent: JobAgent }) {
  const openThread = useOpenThread(job.threadId);
  const waiting = job.status === 'running' ? agent.waitingApproval : null;
  return (
    <div className="agent-job-work">
      {waiting && (
        <div className="agent-job-approval" role="status" data-testid="job-waiting-approval">
          <ShieldAlert size={16} aria-hidden="true" />
          <div>
            <strong>Waiting for your approval</strong>
            {waiting.command ? <code className="job-mono">{waiting.command}</code> : null}
          </div>
          {openThread && (
            <button type="button" className="button button-primary" data-testid="job-review-approval" onClick={openThread}>
              Review
            </button>
          )}
        </div>
      )}
      <p className="job-waiting">
        {job.runs === 0
          ? 'Waiting for a free slot to start.'
          : 'The agent works in its own conversation: every reply, command and approval is there.'}
      </p>
      {openThread && job.runs > 0 && (
        <button type="button" className="button button-secondary agent-job-open" onClick={openThread}>
          <MessageSquare size={14} aria-hidden="true" />
          Open the conversation
        </button>
      )}
    </div>
  );
}
