import type { TerminalProgress } from '../../exec/index.js';
import type { EventLog } from '../event-log.js';
import type { JobClock } from './job-clock.js';
import type { JobCommits } from './job-commits.js';
import { activeMsAt, type JobEntry, type LiveRun } from './job-entry.js';
import * as machine from './job-state.js';

/** One job commits at most this often however fast it prints (~20 a second). */
export const MIN_COMMIT_INTERVAL_MS = 50;
/** How often, at most, a detached run's streamed offset is written while output flows. */
const STREAMED_WRITE_MS = 1000;

export interface RunOutputOptions {
  readonly events: EventLog;
  readonly clock: JobClock;
  readonly commits: JobCommits;
}

/**
 * A run's output on its way out: `job/output/delta` with the log offset it
 * starts at, progress from OSC 9;4 and (when asked) from the text, and how
 * far a detached run's log has been streamed — written at most once a second
 * while output flows and when following stops, so a re-attach goes on from
 * there and clients drop by offset the little that is sent twice.
 */
export class RunOutput {
  constructor(private readonly options: RunOutputOptions) {}

  /** Decoded text that begins `offset` bytes into the run's log. */
  text(entry: JobEntry, live: LiveRun, offset: number, delta: string): void {
    if (delta.length === 0) return;
    // The run's log is the replay (job/log); the event log need not keep a copy.
    this.options.events.publish('job/output/delta', { jobId: entry.state.id, attempt: live.run, offset, delta }, { unlogged: true });
    const found = live.outputParser?.push(delta) ?? null;
    if (found !== null) this.progress(entry, live, found);
    if (live.place === null) return;
    live.streamedBytes = offset + Buffer.byteLength(delta);
    live.streamedTimer ??= setTimeout(() => {
      live.streamedTimer = null;
      this.storeStreamed(entry, live);
    }, STREAMED_WRITE_MS);
  }

  terminalProgress(entry: JobEntry, live: LiveRun, progress: TerminalProgress): void {
    if (progress.state === 'hidden' || progress.state === 'indeterminate') this.progress(entry, live, null);
    else if (progress.percent !== null) this.progress(entry, live, progress.percent);
  }

  /** Writes how far the log was streamed, if that moved. */
  storeStreamed(entry: JobEntry, live: LiveRun): void {
    if (live.streamedTimer) clearTimeout(live.streamedTimer);
    live.streamedTimer = null;
    if (live.streamedBytes === live.storedStreamedBytes) return;
    live.storedStreamedBytes = live.streamedBytes;
    this.options.commits.runUpdated({ jobId: entry.state.id, run: live.run, streamedBytes: live.streamedBytes });
  }

  /** The run is over here (ended, or no longer followed): nothing more is scheduled for it. */
  stop(live: LiveRun): void {
    if (live.progressTimer) clearTimeout(live.progressTimer);
    live.progressTimer = null;
    if (live.streamedTimer) clearTimeout(live.streamedTimer);
    live.streamedTimer = null;
  }

  /** Progress waits for the job's next commit slot; only the newest value is kept. */
  private progress(entry: JobEntry, live: LiveRun, value: number | null): void {
    live.pendingProgress = value;
    if (live.progressTimer) return;
    const wait = Math.max(0, entry.lastCommitAt + MIN_COMMIT_INTERVAL_MS - performance.now());
    live.progressTimer = setTimeout(() => {
      live.progressTimer = null;
      this.applyProgress(entry, live);
    }, wait);
  }

  private applyProgress(entry: JobEntry, live: LiveRun): void {
    const value = live.pendingProgress;
    live.pendingProgress = undefined;
    if (value === undefined || entry.live !== live || entry.state.status !== 'running') return;
    const rounded = value === null ? null : Math.round(value);
    if (rounded === entry.state.progress) return;
    const now = this.options.clock.now();
    machine.updateProgress(entry.state, rounded, entry.state.detail, now);
    entry.etaMs = live.eta.estimate(rounded, activeMsAt(entry, now));
    this.options.commits.mark(entry);
  }
}
