import { RpcError, type Job } from '../../../shared/protocol/index.js';
import type { JobStore } from '../../store/job-store.js';
import type { JobClock } from './job-clock.js';
import type { JobCommits } from './job-commits.js';
import { entryOf, jobOfEntry, type JobEntry } from './job-entry.js';

/**
 * The jobs the engine holds: those with somewhere to go stay in memory;
 * finished ones leave it (`settle`) and are read from the store. Answers
 * are always durable: `commit` writes before it returns the wire object.
 */
export class JobTable {
  readonly entries = new Map<string, JobEntry>();
  private nextQueueOrder: number;

  constructor(
    private readonly store: JobStore,
    private readonly commits: JobCommits,
    private readonly clock: JobClock,
  ) {
    this.nextQueueOrder = store.maxQueueOrder() + 1;
  }

  /** The next place at the back of the queue (FIFO across restarts). */
  queueOrder(): number {
    return this.nextQueueOrder++;
  }

  /** The entry in memory, else the stored job; a typed error if there is none. */
  lookup(jobId: string): JobEntry {
    const live = this.entries.get(jobId);
    if (live) return live;
    const row = this.store.get(jobId);
    if (!row) throw RpcError.because('job.notFound', `job not found: ${jobId}`, { jobId });
    return entryOf(row);
  }

  /** A consistent wire object for an entry as it is now. */
  jobNow(entry: JobEntry): Job {
    return jobOfEntry(entry, this.clock.now());
  }

  async commit(entry: JobEntry): Promise<{ job: Job }> {
    this.commits.mark(entry);
    await this.commits.committed();
    return { job: this.jobNow(entry) };
  }

  /** Finished jobs leave memory; the store has them. */
  settle(entry: JobEntry): void {
    const { status } = entry.state;
    const done = status === 'completed' || status === 'cancelled' || (status === 'failed' && entry.state.retry.nextRetryAt === null);
    if (done && !entry.live) this.entries.delete(entry.state.id);
  }
}

/** The typed error for an action a job's state does not allow. */
export function refuse(entry: JobEntry, action: string, why: string): RpcError {
  return RpcError.because('job.wrongState', `cannot ${action} job ${entry.state.id}: ${why}`, { jobId: entry.state.id, status: entry.state.status, action });
}
