import type { DetachedRunHandle, DetachedRunState } from '../../exec/index.js';
import type { JobRunRow, JobStore } from '../../store/job-store.js';
import type { AgentRunner } from './agent-runner.js';
import type { JobClock } from './job-clock.js';
import type { JobCommandRunner } from './job-command-runner.js';
import type { JobCommits } from './job-commits.js';
import { markRunning, type JobEntry } from './job-entry.js';
import type { JobTable } from './job-table.js';
import * as machine from './job-state.js';

export interface JobQueueParts {
  readonly table: JobTable;
  readonly store: JobStore;
  readonly commits: JobCommits;
  readonly clock: JobClock;
  readonly runner: JobCommandRunner;
  readonly agents: AgentRunner | null;
  /** Jobs running at once. */
  readonly concurrency: number;
  readonly onError: (message: string, error: unknown) => void;
}

/**
 * Which job runs when: a concurrency limit with a FIFO queue (started once
 * per turn of the event loop, however many changes asked), the slot each
 * run holds until it ends, and automatic retries that run at their time.
 */
export class JobQueue {
  /** Runs started and not yet ended (each holds a slot, paused ones too). */
  private liveRuns = 0;
  private scheduled: ReturnType<typeof setImmediate> | null = null;
  private stopped = false;

  constructor(private readonly parts: JobQueueParts) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Starts queued jobs soon. */
  dispatch(): void {
    if (this.stopped || this.scheduled || this.liveRuns >= this.parts.concurrency) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = null;
      this.dispatchNow();
    });
  }

  /** A run already going (an adopted process) takes a slot. */
  runAdopted(): void {
    this.liveRuns += 1;
  }

  /** Nothing new starts from now on; retries and approvals waiting are dropped. */
  stop(): void {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    for (const entry of this.parts.table.entries.values()) {
      this.disarmRetry(entry);
      entry.approvalWait?.abort();
    }
  }

  /**
   * Follows a run that was started before (after a restart, or found alive where none should be).
   * `activeSince`: when it would have started had it never paused (see rowOf).
   */
  reattach(entry: JobEntry, row: JobRunRow, handle: DetachedRunHandle, state: DetachedRunState['state'], activeSince: number, now: number): void {
    entry.runs = row.run;
    if (entry.state.status === 'queued') {
      // The app died between starting it and recording "running": it had started.
      entry.activeMs = 0;
      entry.state.detail = null;
      machine.setRunning(entry.state, now);
    }
    if (entry.state.status === 'running') {
      // Its running time, also while nobody watched, is now − `activeSince` (the stored total included the stretch so far).
      entry.activeMs = 0;
      entry.activeSince = activeSince;
    } else {
      entry.activeSince = null;
    }
    entry.state.updatedAt = now;
    machine.pushHistory(entry.state, 'reattached');
    this.parts.commits.mark(entry);
    this.liveRuns += 1;
    this.parts.runner.reattach(entry, row, handle, state);
  }

  /** A run ended (its transition is made): arm a retry, free the slot, start the next. */
  afterRun(entry: JobEntry): void {
    this.liveRuns -= 1;
    stopClock(entry, this.parts.clock.now());
    if (this.stopped) return;
    if (entry.state.status === 'failed') this.armRetry(entry);
    this.parts.table.settle(entry);
    this.dispatch();
  }

  armRetry(entry: JobEntry): void {
    this.disarmRetry(entry);
    const at = entry.state.retry.nextRetryAt;
    if (at === null || this.stopped) return;
    const { clock } = this.parts;
    entry.retryTimer = clock.setTimeout(() => {
      entry.retryTimer = null;
      if (this.stopped || entry.state.status !== 'failed') return;
      const attempt = entry.state.retry.attempt;
      machine.requeue(entry.state, 'retrying', `retry ${attempt} of ${entry.state.retry.maxAttempts}`, clock.now());
      // The retry goes back to the seed's attempt count; requeue cleared only the schedule.
      entry.queueOrder = this.parts.table.queueOrder();
      this.parts.commits.mark(entry);
      this.dispatch();
    }, Math.max(0, at - clock.now()));
  }

  disarmRetry(entry: JobEntry): void {
    if (entry.retryTimer !== null) this.parts.clock.clearTimeout(entry.retryTimer);
    entry.retryTimer = null;
  }

  /** Starts queued jobs, oldest in the queue first, while slots are free. */
  private dispatchNow(): void {
    const { table, store, runner, agents, commits, clock, concurrency } = this.parts;
    if (this.stopped || this.liveRuns >= concurrency) return;
    const queued: JobEntry[] = [];
    for (const entry of table.entries.values()) if (!entry.live && entry.state.status === 'queued' && !entry.spec.approval) queued.push(entry);
    queued.sort((a, b) => a.queueOrder - b.queueOrder);
    for (const entry of queued.slice(0, concurrency - this.liveRuns)) {
      const now = clock.now();
      // Never beside an earlier run of the same job that is still alive: that one is followed instead.
      const alive = entry.kind === 'command' && entry.runs > 0 ? runner.aliveEarlierRun(store.runs(entry.state.id)) : null;
      if (alive) {
        this.parts.onError(`job ${entry.state.id}`, new Error(`run ${alive.row.run} is still alive; following it instead of starting another`));
        this.reattach(entry, alive.row, alive.handle, 'running', now, now);
        continue;
      }
      const continuing = entry.continueRun;
      if (!continuing) entry.runs += 1;
      entry.continueRun = false;
      this.liveRuns += 1;
      if (entry.kind === 'agent' && agents) {
        markRunning(entry, now, continuing);
        commits.mark(entry);
        agents.start(entry);
      } else {
        // "running" once its identity is durable (job-command-runner).
        runner.start(entry);
      }
    }
  }
}

/** Adds the stretch since the run last started or resumed to its running time. */
export function stopClock(entry: JobEntry, now: number): void {
  if (entry.activeSince !== null) entry.activeMs += Math.max(0, now - entry.activeSince);
  entry.activeSince = null;
}
