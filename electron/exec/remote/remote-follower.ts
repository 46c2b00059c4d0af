import fs from 'node:fs';
import { TerminalProgressParser } from '../terminal-progress.js';
import type { DetachedAttachment, DetachedRunEvent, DetachedRunState } from '../detached/detached-run.js';
import { incompleteUtf8Tail } from '../detached/run-follower.js';

/** What one look at a remote run returns: its state (seen before its log was read) and the log from an offset. */
export interface RemoteLook {
  readonly state: DetachedRunState;
  readonly data: Buffer;
  /** The read stopped at its size limit: more is there already. */
  readonly more: boolean;
}

export interface RemoteFollowerOptions {
  /** This machine's copy of the run's log; bytes are written at their offsets. */
  readonly mirrorPath: string;
  readonly fromOffset: number;
  /** One look over the connection; throws while the host cannot be reached (the follower keeps trying). */
  readonly look: (offset: number) => Promise<RemoteLook>;
  /** How often a running run is looked at. */
  readonly pollMs: number;
  readonly listener: (event: DetachedRunEvent) => void;
  /** Each state learned (the environment keeps the last one for `state` and `isAlive`). */
  readonly onState: (state: DetachedRunState) => void;
}

/**
 * Follows a run that lives on another machine: looks at it every `pollMs`
 * (state first, then the log from where it got to), copies what is new into
 * the local mirror at the same offsets and reports it, never splitting a
 * UTF-8 character, then the end. A look that fails (the connection dropped)
 * changes nothing: the next one goes on from the same offset, so every byte
 * arrives once however often the connection comes and goes.
 */
export class RemoteFollower implements DetachedAttachment {
  private position: number;
  private done = false;
  private looking = false;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly progress = new TerminalProgressParser();
  private fd: number | null;

  constructor(private readonly options: RemoteFollowerOptions) {
    this.position = options.fromOffset;
    try {
      this.fd = fs.openSync(options.mirrorPath, fs.constants.O_WRONLY | fs.constants.O_CREAT, 0o600);
    } catch {
      this.fd = null;
    }
    setImmediate(() => void this.look());
  }

  get offset(): number {
    return this.position;
  }

  poll(): void {
    void this.look();
  }

  dispose(): void {
    if (this.done) return;
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  private schedule(ms: number): void {
    if (this.done) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.look(), ms);
    this.timer.unref();
  }

  private async look(): Promise<void> {
    if (this.done) return;
    if (this.looking) {
      this.again = true;
      return;
    }
    this.looking = true;
    let next = this.options.pollMs;
    try {
      const look = await this.options.look(this.position);
      if (this.done) return;
      this.options.onState(look.state);
      const ended = look.state.state !== 'running' && !look.more;
      this.deliver(look.data, ended);
      if (look.more) next = 0;
      else if (ended) {
        this.dispose();
        this.options.listener({ type: 'end', end: look.state as Exclude<DetachedRunState, { state: 'running' }> });
        return;
      }
    } catch {
      // Unreachable for now: the connection reconnects with backoff; the next look goes on from here.
      next = Math.max(this.options.pollMs, 1000);
    } finally {
      this.looking = false;
    }
    if (this.again) {
      this.again = false;
      next = 0;
    }
    this.schedule(next);
  }

  private deliver(chunk: Buffer, final: boolean): void {
    const kept = final ? chunk.length : chunk.length - incompleteUtf8Tail(chunk);
    if (kept <= 0) return;
    const data = Buffer.from(chunk.subarray(0, kept));
    const offset = this.position;
    if (this.fd !== null) {
      try {
        fs.writeSync(this.fd, data, 0, data.length, offset);
      } catch {
        // The copy is a convenience for reading pages of the log; the stream still goes on.
      }
    }
    this.position += kept;
    this.options.listener({ type: 'output', offset, data });
    for (const progress of this.progress.push(data)) {
      if (this.done) return;
      this.options.listener({ type: 'progress', progress });
    }
  }
}
