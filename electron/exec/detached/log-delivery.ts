import fs from 'node:fs';
import { TerminalProgressParser } from '../terminal-progress.js';
import type { DetachedRunEvent, DetachedRunState } from './detached-run.js';

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

export interface LogDeliveryOptions {
  readonly fromOffset: number;
  readonly listener: (event: DetachedRunEvent) => void;
  /** This machine's copy of a remote log: delivered bytes are written there at their offsets. */
  readonly mirrorPath?: string;
}

/**
 * What every follower of a run does with the bytes it finds, wherever they
 * come from (the local log file, a remote look, a remote stream): takes
 * bytes at their offsets, so one source overlapping another or repeating
 * itself after a reconnect delivers each byte once and in order; holds back
 * an incomplete UTF-8 character until the run has ended (text offsets stay
 * exact); parses progress; reports a job array's tasks when they change; and
 * reports the end last, once.
 */
export class LogDelivery {
  private position: number;
  /** Bytes from `position` received but not delivered yet (the start of a UTF-8 character). */
  private held: Buffer = Buffer.alloc(0);
  private readonly progress = new TerminalProgressParser();
  private fd: number | null = null;
  private lastTasks = '';
  private lastWaiting: string | null = null;
  private finished = false;

  constructor(private readonly options: LogDeliveryOptions) {
    this.position = options.fromOffset;
    if (options.mirrorPath) {
      try {
        this.fd = fs.openSync(options.mirrorPath, fs.constants.O_WRONLY | fs.constants.O_CREAT, 0o600);
      } catch {
        this.fd = null;
      }
    }
  }

  /** Bytes delivered so far: the next output's offset. */
  get offset(): number {
    return this.position;
  }

  /** Bytes received so far (delivered or held): where the next read should start. */
  get received(): number {
    return this.position + this.held.length;
  }

  get done(): boolean {
    return this.finished;
  }

  /**
   * Takes `data` found at `offset`. False when it starts past what was
   * received (a gap: the source must read again from `received`); bytes
   * already received are skipped.
   */
  accept(offset: number, data: Buffer, final = false): boolean {
    if (this.finished) return true;
    if (offset > this.received) return false;
    const fresh = data.subarray(Math.min(data.length, this.received - offset));
    const pending = this.held.length > 0 ? Buffer.concat([this.held, fresh]) : fresh;
    const kept = final ? pending.length : pending.length - incompleteUtf8Tail(pending);
    this.held = Buffer.from(pending.subarray(kept));
    if (kept > 0) this.deliver(Buffer.from(pending.subarray(0, kept)));
    return true;
  }

  /** What a look found: why a run has not begun yet (a Slurm job pending), and a job array's tasks. */
  state(state: DetachedRunState): void {
    this.waiting(state);
    this.tasks(state);
  }

  /** Why an accepted run has not begun, each time it changes, and null once it has (arrays say it per task). */
  private waiting(state: DetachedRunState): void {
    if (this.finished || state.state !== 'running' || state.tasks) return;
    const detail = state.detail ?? null;
    if (detail === this.lastWaiting) return;
    this.lastWaiting = detail;
    this.options.listener({ type: 'waiting', detail });
  }

  /** A job array's tasks, each time they change (before the end that summarises them). */
  private tasks(state: DetachedRunState): void {
    const tasks = state.state === 'running' ? state.tasks : state.state === 'ended' ? state.exit.tasks : undefined;
    if (!tasks || this.finished) return;
    const json = JSON.stringify(tasks);
    if (json === this.lastTasks) return;
    this.lastTasks = json;
    this.options.listener({ type: 'tasks', tasks });
  }

  /** The run is over and every byte it wrote was accepted: what was held back, then the end. */
  end(end: Exclude<DetachedRunState, { state: 'running' }>): void {
    if (this.finished) return;
    if (this.held.length > 0) this.accept(this.received, Buffer.alloc(0), true);
    if (this.finished) return;
    this.close();
    this.options.listener({ type: 'end', end });
  }

  /** Stops delivering (nothing more is reported). */
  close(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  private deliver(data: Buffer): void {
    const offset = this.position;
    if (this.fd !== null) {
      try {
        fs.writeSync(this.fd, data, 0, data.length, offset);
      } catch {
        // The copy is a convenience for reading pages of the log; the stream still goes on.
      }
    }
    this.position += data.length;
    this.options.listener({ type: 'output', offset, data });
    for (const progress of this.progress.push(data)) {
      // A listener may have stopped following.
      if (this.finished) return;
      this.options.listener({ type: 'progress', progress });
    }
  }
}
