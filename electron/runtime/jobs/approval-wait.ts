import { WAITING_FOR_APPROVAL, type JobApprovals } from './job-approvals.js';
import type { JobClock } from './job-clock.js';
import type { JobCommits } from './job-commits.js';
import type { JobEntry } from './job-entry.js';
import type { JobQueue } from './job-queue.js';
import type { JobTable } from './job-table.js';
import * as machine from './job-state.js';

export interface ApprovalWaitParts {
  readonly approvals: JobApprovals | undefined;
  readonly table: JobTable;
  readonly queue: JobQueue;
  readonly commits: JobCommits;
  readonly clock: JobClock;
  readonly onError: (message: string, error: unknown) => void;
}

/**
 * The job waits (queued, or paused meanwhile) until the person answers; a
 * yes lets it start, a no cancels it. Cancel, delete and quit abort the wait
 * (`entry.approvalWait`); an answer after that changes nothing.
 */
export function awaitApproval(parts: ApprovalWaitParts, entry: JobEntry): void {
  const need = entry.spec.approval;
  if (!need || !parts.approvals || entry.approvalWait) return;
  const wait = new AbortController();
  entry.approvalWait = wait;
  void parts.approvals
    .ask(entry, need, wait.signal)
    .catch((error: unknown) => {
      parts.onError(`approval of job ${entry.state.id}`, error);
      return 'ended' as const;
    })
    .then((answer) => {
      if (entry.approvalWait === wait) entry.approvalWait = null;
      if (answer === 'ended' || parts.queue.isStopped || !parts.table.entries.has(entry.state.id)) return;
      const now = parts.clock.now();
      const { approval: _answered, ...approved } = entry.spec;
      entry.spec = approved;
      if (answer === 'declined') {
        machine.cancel(entry.state, now, 'not run: the person declined it');
      } else if (entry.state.status === 'queued') {
        entry.state.detail = null;
        entry.state.updatedAt = now;
        machine.pushHistory(entry.state, 'approved');
      } else if (entry.state.detail === WAITING_FOR_APPROVAL) {
        entry.state.detail = null;
      }
      parts.commits.mark(entry);
      parts.table.settle(entry);
      parts.queue.dispatch();
    });
}
