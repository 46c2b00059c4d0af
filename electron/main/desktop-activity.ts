import { approvalNotice, jobNotice, type Notice } from '../../shared/notices.js';
import type { Job, PendingApproval } from '../../shared/protocol/index.js';

/** What the tray badge and the quit question count. */
export interface ActivityCounts {
  readonly runningJobs: number;
  readonly waitingApprovals: number;
}

export interface DesktopActivityOptions {
  /** Something worth telling the person happened (finished, failed for good, approval needed). */
  readonly onNotice: (notice: Notice) => void;
  /** An approval stopped waiting (answered anywhere, or its turn ended): its notification can go. */
  readonly onWithdrawn: (tag: string) => void;
  /** The counts changed. */
  readonly onCounts: (counts: ActivityCounts) => void;
  /** Names the job or thread an approval comes from, when it can. */
  readonly originName?: (pending: PendingApproval) => string | null;
}

/**
 * The shell's view of what the runtime is busy with, fed by the runtime's
 * live events only (job/updated, job/deleted, approvals as they are asked),
 * never by a replay: so it tells each finished job, failure for good and
 * waiting approval once, and keeps the counts of running jobs and waiting
 * approvals for the tray badge and the quit question.
 */
export class DesktopActivity {
  private readonly jobs = new Map<string, Job>();
  private readonly approvals = new Map<string, string>();
  private last: ActivityCounts = { runningJobs: 0, waitingApprovals: 0 };

  constructor(private readonly options: DesktopActivityOptions) {}

  get counts(): ActivityCounts {
    return this.last;
  }

  /** The jobs as the runtime lists them at start: a baseline, never announced. */
  seed(jobs: Iterable<Job>): void {
    for (const job of jobs) {
      const known = this.jobs.get(job.id);
      if (!known || known.updatedAt <= job.updatedAt) this.jobs.set(job.id, job);
    }
    this.recount();
  }

  jobUpdated(job: Job): void {
    const before = this.jobs.get(job.id);
    if (before && before.updatedAt > job.updatedAt) return;
    this.jobs.set(job.id, job);
    const notice = jobNotice(before, job);
    if (notice) this.options.onNotice(notice);
    this.recount();
  }

  jobDeleted(jobId: string): void {
    this.jobs.delete(jobId);
    this.recount();
  }

  /** A request started waiting for the person; `withdrawn` aborts when it stops waiting. */
  approvalWaiting(pending: PendingApproval, withdrawn: AbortSignal): void {
    if (withdrawn.aborted || this.approvals.has(pending.requestId)) return;
    const notice = approvalNotice(pending, this.options.originName?.(pending) ?? null);
    this.approvals.set(pending.requestId, notice.tag);
    withdrawn.addEventListener(
      'abort',
      () => {
        this.approvals.delete(pending.requestId);
        this.options.onWithdrawn(notice.tag);
        this.recount();
      },
      { once: true },
    );
    this.options.onNotice(notice);
    this.recount();
  }

  /** Forgets everything (the runtime stopped): nothing runs or waits that this shell can see. */
  clear(): void {
    this.jobs.clear();
    this.approvals.clear();
    this.recount();
  }

  private recount(): void {
    let runningJobs = 0;
    for (const job of this.jobs.values()) if (job.status === 'running') runningJobs += 1;
    const counts = { runningJobs, waitingApprovals: this.approvals.size };
    if (counts.runningJobs === this.last.runningJobs && counts.waitingApprovals === this.last.waitingApprovals) return;
    this.last = counts;
    this.options.onCounts(counts);
  }
}
