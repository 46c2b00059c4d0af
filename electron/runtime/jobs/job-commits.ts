import type { Job } from '../../../shared/protocol/index.js';
import type { JobRow, JobRunEnd, JobRunRow, JobRunUpdate, JobStore } from '../../store/job-store.js';
import { jobOf, rowOf, type JobEntry } from './job-entry.js';

/**
 * Job writes, batched: every change made in one turn of the event loop lands
 * in one transaction, and only after it commits are clients told (`job/updated`).
 * A failed write is retried with the next batch, and nobody is told until it lands.
 */
export class JobCommits {
  private readonly dirty = new Map<string, JobEntry>();
  private runStarts: JobRunRow[] = [];
  private runEnds: JobRunEnd[] = [];
  private runUpdates: JobRunUpdate[] = [];
  private waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private scheduled: ReturnType<typeof setImmediate> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** After close nothing is written (the store is closing); later changes are re-derived at the next start. */
  private closed = false;

  constructor(
    private readonly store: JobStore,
    private readonly now: () => number,
    private readonly announce: (job: Job) => void,
    private readonly onError: (message: string, error: unknown) => void,
  ) {}

  mark(entry: JobEntry): void {
    this.dirty.set(entry.state.id, entry);
    this.schedule();
  }

  runStarted(run: JobRunRow): void {
    this.runStarts.push(run);
    this.schedule();
  }

  /** A run's identity once started, or how much of its log was streamed. */
  runUpdated(run: JobRunUpdate): void {
    this.runUpdates.push(run);
    this.schedule();
  }

  runEnded(run: JobRunEnd): void {
    this.runEnds.push(run);
    this.schedule();
  }

  forget(id: string): void {
    this.dirty.delete(id);
  }

  /** Resolves once everything marked so far is durable (and announced). */
  committed(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the job store is closed'));
    if (this.dirty.size === 0 && this.runStarts.length === 0 && this.runEnds.length === 0 && this.runUpdates.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.closed) return;
    this.scheduled ??= setImmediate(() => {
      this.scheduled = null;
      this.flush();
    });
  }

  /** Writes everything marked, then announces it. Returns the rows written. */
  flush(): JobRow[] {
    if (this.closed) return [];
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const now = this.now();
    const entries = [...this.dirty.values()];
    const rows = entries.map((entry) => rowOf(entry, now));
    const waiters = this.waiters;
    try {
      this.store.upsertMany(rows, this.runStarts, this.runEnds, this.runUpdates);
    } catch (error) {
      this.onError(`could not write ${rows.length} job changes`, error);
      // Kept for the next attempt; callers wait until it lands.
      this.retryTimer = setTimeout(() => this.flush(), 250);
      return [];
    }
    this.dirty.clear();
    this.runStarts = [];
    this.runEnds = [];
    this.runUpdates = [];
    this.waiters = [];
    const at = performance.now();
    for (const entry of entries) entry.lastCommitAt = at;
    for (const row of rows) this.announce(jobOf(row));
    for (const waiter of waiters) waiter.resolve();
    return rows;
  }

  close(): void {
    this.flush();
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }
}
