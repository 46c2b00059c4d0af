import fs from 'node:fs';
import type { DetachedAttachment, DetachedRunEvent, DetachedRunState } from './detached-run.js';
import { LogDelivery } from './log-delivery.js';

/** How long after the first bytes of a burst the rest is read (what node-pty's batching was: 16 ms). */
const BATCH_MS = 16;
/** Largest chunk delivered at once. */
const READ_BYTES = 256 * 1024;
/**
 * One read buffer for every follower: reads are synchronous and LogDelivery copies what it keeps
 * and delivers before the next read. A 256 KB buffer per followed run (one per job) was allocated
 * below glibc's raised mmap threshold, in its main heap, and freed only when the follower was
 * collected: 500 jobs left the heap 7-10 MB larger (docs/performance.md, "Memory over a soak").
 */
const readBuffer = Buffer.alloc(READ_BYTES);

export interface RunFollowerOptions {
  readonly runDir: string;
  readonly logPath: string;
  readonly fromOffset: number;
  /** The run's state now (cheap: a file and a /proc read). */
  readonly state: () => DetachedRunState;
  /** How often the log and the run's life are checked when no file event says so. */
  readonly pollMs: number;
  readonly listener: (event: DetachedRunEvent) => void;
}

/**
 * Follows a run's log on this machine from an offset and reports its end:
 * woken by file events on the run's folder (inotify, FSEvents) and by a slow
 * poll when those are missing. Output is read at once after a quiet spell
 * and at most every 16 ms during a burst and handed to a LogDelivery, the
 * same as a remote run's (remote-follower.ts).
 */
export class RunFollower implements DetachedAttachment {
  private readonly delivery: LogDelivery;
  private fd: number | null = null;
  private watcher: fs.FSWatcher | null = null;
  private readonly poller: NodeJS.Timeout;
  private batchTimer: NodeJS.Timeout | null = null;
  private lastReadAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: RunFollowerOptions) {
    this.delivery = new LogDelivery({ fromOffset: options.fromOffset, listener: options.listener });
    try {
      this.fd = fs.openSync(options.logPath, 'r');
    } catch {
      this.fd = null; // a log that is gone: the end is still reported
    }
    try {
      this.watcher = fs.watch(options.runDir, { persistent: false }, () => this.wake());
      this.watcher.on('error', () => this.stopWatching());
    } catch {
      this.watcher = null; // polling alone still works
    }
    this.poller = setInterval(() => this.check(), options.pollMs);
    this.poller.unref();
    // What was written while nobody followed (after a restart), then whether it has already ended.
    setImmediate(() => this.check());
  }

  get offset(): number {
    return this.delivery.offset;
  }

  private get done(): boolean {
    return this.delivery.done;
  }

  poll(): void {
    this.check();
  }

  dispose(): void {
    this.delivery.close();
    this.stop();
  }

  private stop(): void {
    clearInterval(this.poller);
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    this.stopWatching();
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  private stopWatching(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  private wake(): void {
    if (this.done || this.batchTimer) return;
    const wait = this.lastReadAt + BATCH_MS - performance.now();
    if (wait <= 0) this.check();
    else this.batchTimer = setTimeout(() => this.check(), wait);
  }

  /** Reads what is new; once the run is over, the rest of the log and then the end. */
  private check(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    if (this.done) return;
    this.read();
    const state = this.options.state();
    if (state.state === 'running' || this.done) return;
    // Ended: its log is complete (or, lost, as complete as it will get).
    this.read();
    if (this.done) return;
    this.stop();
    this.delivery.end(state);
  }

  private read(): void {
    this.lastReadAt = performance.now();
    if (this.fd === null) return;
    for (;;) {
      const from = this.delivery.received;
      let count: number;
      try {
        count = fs.readSync(this.fd, readBuffer, 0, readBuffer.length, from);
      } catch {
        return;
      }
      if (count === 0) return;
      this.delivery.accept(from, readBuffer.subarray(0, count));
      // A listener may have stopped following.
      if (this.done || count < readBuffer.length) return;
    }
  }
}
