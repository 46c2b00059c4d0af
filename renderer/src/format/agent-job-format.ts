import type { Job, JobAgent } from '../../../shared/protocol/index.js';
import { formatDuration, STATUS_LABELS } from './job-format.js';

const count = new Intl.NumberFormat('en-US');

/** "1,234 of 10,000 tokens" (or "1,234 tokens" without a budget). */
export function tokensLabel(agent: JobAgent): string {
  return agent.tokenBudget === null ? `${count.format(agent.tokensUsed)} tokens` : `${count.format(agent.tokensUsed)} of ${count.format(agent.tokenBudget)} tokens`;
}

/** "2 m 05 s of 30 m 00 s" (or "2 m 05 s" without a budget). */
export function timeLabel(agent: JobAgent): string {
  return agent.timeBudgetMs === null ? formatDuration(agent.timeUsedMs) : `${formatDuration(agent.timeUsedMs)} of ${formatDuration(agent.timeBudgetMs)}`;
}

/** The budget line of the dashboard: tokens, and time when it has a budget. */
export function budgetLabel(agent: JobAgent): string {
  return agent.timeBudgetMs === null ? tokensLabel(agent) : `${tokensLabel(agent)} · ${timeLabel(agent)}`;
}

/** True while the job waits for the person to answer an approval. */
export const isWaitingForApproval = (job: Job): boolean => job.status === 'running' && job.agent?.waitingApproval != null;

/** The status badge: "Waiting for approval" stands out from plain "Running". */
export function jobStatusLabel(job: Job): string {
  return isWaitingForApproval(job) ? 'Waiting for approval' : STATUS_LABELS[job.status];
}

/** What the second line of a row shows: the command, or the agent's goal. */
export const jobSubject = (job: Job): string => job.agent?.objective ?? job.command ?? '';
