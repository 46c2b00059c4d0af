import { Check, CircleDashed, MessageSquare, ShieldAlert, X } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { Job, JobAgent } from '../../../../shared/protocol/index.js';
import { timeLabel, tokensLabel } from '../../format/agent-job-format.js';
import { client, useJobsStore, useThreadsStore } from '../../services/services.js';
import { JobThreadWatcher, type JobThreadState } from '../../stores/agent-job-activity-store.js';
import type { ActivityStep } from '../../format/agent-job-activity.js';
import { MarkdownView } from '../conversation/markdown-view.js';
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
      {job.runs === 0 || !job.threadId ? (
        <p className="job-waiting">Waiting for a free slot to start.</p>
      ) : (
        <JobThreadActivity threadId={job.threadId} ended={job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled'} />
      )}
      {openThread && job.runs > 0 && (
        <button type="button" className="button button-secondary agent-job-open" onClick={openThread}>
          <MessageSquare size={14} aria-hidden="true" />
          Open the whole conversation
        </button>
      )}
    </div>
  );
}

/** Follows the job's conversation while the page is open. */
function useJobThread(threadId: string): JobThreadState {
  const [state, setState] = useState<JobThreadState>({ status: 'loading' });
  useEffect(() => {
    const watcher = new JobThreadWatcher(client, threadId, setState);
    return () => watcher.dispose();
  }, [threadId]);
  return state;
}

const STEP_ICONS: Readonly<Record<ActivityStep['state'], typeof Check>> = { running: CircleDashed, done: Check, failed: X, declined: X };

/** The agent's answer (its newest reply; the final one once the job has ended) and what it did last. */
function JobThreadActivity({ threadId, ended }: { readonly threadId: string; readonly ended: boolean }) {
  const state = useJobThread(threadId);
  if (state.status === 'loading') return <p className="job-waiting">Loading what the agent did…</p>;
  if (state.status === 'failed') {
    return (
      <p className="job-waiting" role="alert">
        Could not load what the agent did ({state.message}). Open the whole conversation to see it.
      </p>
    );
  }
  const { answer, steps } = state.activity;
  return (
    <>
      <section className="agent-job-answer" aria-label={ended ? 'Final answer' : 'Latest reply'} data-testid="job-answer">
        <h3 className="agent-job-heading">{ended ? 'Final answer' : 'Latest reply'}</h3>
        {answer ? <MarkdownView text={answer} streaming={false} /> : <p className="job-waiting">{ended ? 'The agent gave no answer.' : 'No reply yet.'}</p>}
      </section>
      <section className="agent-job-activity" aria-label="What the agent did last" data-testid="job-activity">
        <h3 className="agent-job-heading">What it did last</h3>
        {steps.length === 0 ? (
          <p className="job-waiting">Nothing yet.</p>
        ) : (
          <ol className="agent-job-steps">
            {steps.map((step) => {
              const Icon = STEP_ICONS[step.state];
              return (
                <li key={step.id} className="agent-job-step" data-state={step.state} data-kind={step.kind}>
                  <Icon size={13} aria-hidden="true" className="agent-job-step-icon" />
                  <span className="agent-job-step-text">{step.text}</span>
                  <span className="agent-job-step-result">{step.state === 'running' ? 'running…' : step.result}</span>
                </li>
              );
            })}
          </ol>
        )}
      </section>
    </>
  );
}
