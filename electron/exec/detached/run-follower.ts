import fs from 'node:fs';
import { TerminalProgressParser } from '../terminal-progress.js';
import type { DetachedAttachment, DetachedRunEvent, DetachedRunState } from './detached-run.js';

/** How long after the first bytes of a burst the rest is read (what node-pty's batching was: 16 ms). */
const BATCH_MS = 16;
/** Largest chunk delivered at once. */
const READ_BYTES = 256 * 1024;

/** Bytes at the end of `data` that begin a UTF-8 character not yet complete (0–3). */
export function incompleteUtf8Tail(data: Buffer): number {
  const end = data.length;
  for (let back = 1; back <= Math.min(3, end); back += 1) {
    const byte = data[end - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? back : 0;
  }
  return 0;
}

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
 * Follows a run's log from an offset and reports its end: woken by file
 * events on the run's folder (inotify, FSEvents) and by a slow poll when
 * those are missing. Output is read at once after a quiet spell and at most
 * every 16 ms during a burst; a chunk never ends inside a UTF-8 character
 * (until the run has ended), so text offsets are exact.
 */
export class RunFollower implements DetachedAttachment {
  private position: number;
  private fd: number | null = null;
  private watcher: fs.FSWatcher | null = null;
  private readonly poller: NodeJS.Timeout;
  private batchTimer: NodeJS.Timeout | null = null;
  private lastReadAt = Number.NEGATIVE_INFINITY;
  private readonly progress = new TerminalProgressParser();
  private readonly buffer = Buffer.alloc(READ_BYTES);
  private done = false;

  constructor(private readonly options: RunFollowerOptions) {
    this.position = options.fromOffset;
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
    return this.position;
  }

  poll(): void {
    this.check();
  }

  dispose(): void {
    if (this.done) return;
    this.done = true;
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
    this.read(false);
    const state = this.options.state();
    if (state.state === 'running' || this.done) return;
    // Ended: its log is complete (or, lost, as complete as it will get).
    this.read(true);
    if (this.done) return;
    this.dispose();
    this.options.listener({ type: 'end', end: state });
  }

  private read(final: boolean): void {
    this.lastReadAt = performance.now();
    if (this.fd === null) return;
    for (;;) {
      let count: number;
      try {
        count = fs.readSync(this.fd, this.buffer, 0, this.buffer.length, this.position);
      } catch {
        return;
      }
      if (count === 0) return;
      const chunk = this.buffer.subarray(0, count);
      const kept = final ? count : count - incompleteUtf8Tail(chunk);
      if (kept === 0) return;
      const data = Buffer.from(chunk.subarray(0, kept));
      const offset = this.position;
      this.position += kept;
      this.options.listener({ type: 'output', offset, data });
      for (const progress of this.progress.push(data)) this.options.listener({ type: 'progress', progress });
      // A listener may have stopped following.
      if (this.done) return;
      if (count < this.buffer.length) return;
    }
  }
}
