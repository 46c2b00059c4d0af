import { spawn as spawnPipes } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import * as pty from 'node-pty';
import { ExecError } from './exec-error.js';
import { foregroundProgram, isAlive } from './process-tree.js';
import type { OutputStream } from './types.js';

/** How the OS ended the leader process. */
export interface RawExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Set when the process's end was not seen (its connection dropped): what happened, in words. */
  readonly lost?: string;
}

/**
 * The process tree of a command on another machine, reached through its
 * connection: the same control as process-tree.ts gives locally, asynchronous.
 */
export interface RemoteProcessTree {
  /** Where it runs (an environment id), for listings and errors. */
  readonly environmentId: string;
  /** Sends `signal` to every process of the command's session there. */
  signal(signal: 'SIGTERM' | 'SIGKILL' | 'SIGSTOP' | 'SIGCONT'): Promise<void>;
  /** True once no process of the session is left there. */
  gone(): Promise<boolean>;
}

/** The one place children are created: a pty or pipes, each leading its own session/group. */
export interface ProcessBackend {
  readonly pid: number;
  write(data: string | Buffer): void;
  /** End of input: EOF for pipes, ^D for a pty. */
  endInput(): void;
  resize(cols: number, rows: number): void;
  /** Stop/start reading output, so the child blocks on a full buffer (flow control). */
  setOutputPaused(paused: boolean): void;
  /** Registers the output and exit listeners; exit comes after all output was read. */
  start(onData: (stream: OutputStream, chunk: Buffer) => void, onExit: (exit: RawExit) => void): void;
  /** A terminal's foreground program other than its own leader (see process-tree.ts); null without a terminal. */
  foregroundProgram(): string | null;
  /** Present for a process on another machine: its tree is signalled there, not through this machine's /proc. */
  readonly remote?: RemoteProcessTree;
}

export interface BackendSpec {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
}

const signalNames = new Map<number, string>(
  Object.entries(os.constants.signals).map(([name, number]) => [number, name]),
);

/** Reaped-leader checks while paused: node-pty destroys the socket 200 ms after the exit, unread bytes with it. */
const EXIT_WATCH_MS = 40;

/**
 * Raw node-pty loses the tail of a fast command's output: when the command
 * exits, libuv takes the pty's hang-up after a short read for end-of-file
 * while the kernel still holds the last few KB (2-13 KB of `seq 1 300000` in
 * our runs). At that end-of-file, before the stream closes the descriptor,
 * the rest is read here directly (the master is non-blocking: EAGAIN or EIO
 * once empty). Uses node-pty 1.1's stream and fd (the version is pinned).
 */
/**
 * One buffer for every terminal's last read (each read is copied out before the next): a fresh
 * 64 KB one per command ended was garbage outside V8's heap whose pages glibc kept, a few MB
 * more resident over a few hundred jobs (docs/performance.md, "Memory over a soak").
 */
const drainBuffer = Buffer.alloc(64 * 1024);

function drainAtEnd(terminal: pty.IPty, onData: (chunk: Buffer) => void): void {
  const internals = terminal as unknown as { _socket?: NodeJS.EventEmitter; fd?: number };
  const socket = internals._socket;
  const fd = internals.fd;
  if (!socket || typeof fd !== 'number') return;
  socket.prependListener('end', () => {
    for (;;) {
      let read: number;
      try {
        read = fs.readSync(fd, drainBuffer, 0, drainBuffer.length, null);
      } catch {
        return;
      }
      if (read <= 0) return;
      onData(Buffer.from(drainBuffer.subarray(0, read)));
    }
  });
}

/** How often the leader of a terminal whose other end we hold is checked for having exited (then more slowly). */
const HELD_TERMINAL_WATCH_MS = [10, 100] as const;
const HELD_TERMINAL_FAST_FOR_MS = 2_000;

/**
 * Keeps the terminal's slave end open in this process until its leader is gone. A program that
 * closes every terminal fd just before exiting (coreutils' touch, mkdir, cp… do) makes the master
 * read EIO; node-pty then closes the master and the kernel hangs the terminal up, so SIGHUP kills
 * the program in its last instant and its exit 0 reads as "killed by SIGHUP" (about half the runs
 * of `touch x` here). Once the leader has been reaped the end is let go, so the exit is reported
 * at once rather than after node-pty's 200 ms fallback. Returns a release function (idempotent).
 */
function holdTerminalOpen(terminal: pty.IPty): () => void {
  const slavePath = (terminal as unknown as { ptsName?: string }).ptsName;
  let fd: number | null = null;
  try {
    if (slavePath) fd = fs.openSync(slavePath, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
  } catch {
    fd = null; // already gone (a very short process): nothing to hold
  }
  if (fd === null) return () => {};
  const started = Date.now();
  let timer: NodeJS.Timeout | null = null;
  const release = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (fd === null) return;
    const held = fd;
    fd = null;
    try {
      fs.closeSync(held);
    } catch {
      // closed already
    }
  };
  const check = () => {
    if (!isAlive(terminal.pid)) return release();
    const fast = Date.now() - started < HELD_TERMINAL_FAST_FOR_MS;
    timer = setTimeout(check, HELD_TERMINAL_WATCH_MS[fast ? 0 : 1]);
    timer.unref();
  };
  check();
  return release;
}

class PtyBackend implements ProcessBackend {
  private readonly terminal: pty.IPty;
  private readonly releaseTerminal: () => void;
  private exitWatch: NodeJS.Timeout | null = null;
  private draining = false;

  constructor(spec: BackendSpec) {
    try {
      this.terminal = pty.spawn(spec.argv[0]!, spec.argv.slice(1), {
        name: spec.env.TERM ?? 'xterm-256color',
        cols: spec.cols,
        rows: spec.rows,
        cwd: spec.cwd,
        env: spec.env,
        // Raw bytes: decoding belongs to the consumers, and byte counts must be exact.
        encoding: null,
      });
    } catch (error) {
      throw new ExecError('spawn-failed', `cannot start ${spec.argv[0]}: ${(error as Error).message}`);
    }
    this.releaseTerminal = holdTerminalOpen(this.terminal);
    this.leaderName = this.readProcessName();
  }

  /** The leader's own name, as node-pty reports the terminal's foreground process at the start. */
  private readonly leaderName: string;

  get pid(): number {
    return this.terminal.pid;
  }

  foregroundProgram(): string | null {
    const fromProc = foregroundProgram(this.terminal.pid);
    if (fromProc !== undefined) return fromProc;
    // macOS and the BSDs: node-pty names the terminal's foreground process itself.
    const name = this.readProcessName();
    return name && name !== this.leaderName ? name : null;
  }

  private readProcessName(): string {
    try {
      return this.terminal.process;
    } catch {
      return '';
    }
  }

  write(data: string | Buffer): void {
    this.terminal.write(data);
  }

  endInput(): void {
    this.terminal.write('\x04');
  }

  resize(cols: number, rows: number): void {
    this.terminal.resize(cols, rows);
  }

  setOutputPaused(paused: boolean): void {
    if (paused && !this.draining) {
      this.terminal.pause();
      // A blocked writer cannot exit, but one whose last write fitted in the kernel buffer can:
      // once it is reaped, read on so those last bytes are not lost with the socket.
      this.exitWatch ??= setInterval(() => {
        if (isAlive(this.terminal.pid)) return;
        this.draining = true;
        this.stopExitWatch();
        this.terminal.resume();
      }, EXIT_WATCH_MS);
    } else if (!paused) {
      this.stopExitWatch();
      this.terminal.resume();
    }
  }

  start(onData: (stream: OutputStream, chunk: Buffer) => void, onExit: (exit: RawExit) => void): void {
    // With `encoding: null` node-pty hands out Buffers; its typings say string.
    this.terminal.onData((chunk) => onData('pty', chunk as unknown as Buffer));
    drainAtEnd(this.terminal, (chunk) => onData('pty', chunk));
    this.terminal.onExit(({ exitCode, signal }) => {
      this.releaseTerminal();
      this.stopExitWatch();
      const name = signal ? (signalNames.get(signal) ?? `signal ${signal}`) : null;
      onExit({ exitCode: name ? null : exitCode, signal: name });
    });
  }

  private stopExitWatch(): void {
    if (this.exitWatch) clearInterval(this.exitWatch);
    this.exitWatch = null;
  }
}

/** After the leader exits, how long inherited pipes may stay open before they are closed on our side. */
const PIPE_LINGER_MS = 1000;

class PipeBackend implements ProcessBackend {
  private readonly child: ReturnType<typeof spawnPipes>;

  private constructor(child: ReturnType<typeof spawnPipes>) {
    this.child = child;
  }

  static async spawn(spec: BackendSpec): Promise<PipeBackend> {
    const child = spawnPipes(spec.argv[0]!, spec.argv.slice(1), {
      cwd: spec.cwd,
      env: spec.env,
      // Its own session and group, like a pty child, so the group signal reaches the tree.
      detached: true,
      windowsHide: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => reject(new ExecError('spawn-failed', `cannot start ${spec.argv[0]}: ${error.message}`)));
    });
    // Writing to a child that closed its stdin is the child's business, not a crash of ours.
    child.stdin!.on('error', () => {});
    return new PipeBackend(child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  foregroundProgram(): null {
    return null; // pipes have no terminal, so nothing is "in front"
  }

  write(data: string | Buffer): void {
    if (!this.child.stdin!.writableEnded) this.child.stdin!.write(data);
  }

  endInput(): void {
    this.child.stdin!.end();
  }

  resize(): void {
    // Pipes have no window size.
  }

  setOutputPaused(paused: boolean): void {
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      if (paused) stream.pause();
      else stream.resume();
    }
  }

  start(onData: (stream: OutputStream, chunk: Buffer) => void, onExit: (exit: RawExit) => void): void {
    this.child.stdout!.on('data', (chunk: Buffer) => onData('stdout', chunk));
    this.child.stderr!.on('data', (chunk: Buffer) => onData('stderr', chunk));
    let exit: RawExit | null = null;
    let closed = false;
    const report = () => {
      if (exit && closed) onExit(exit);
    };
    this.child.once('exit', (exitCode, signal) => {
      exit = { exitCode: signal ? null : exitCode, signal };
      // Unread output must reach the consumers now, even past the flow-control bound.
      this.setOutputPaused(false);
      // A grandchild may keep the pipes open; do not wait for it forever.
      setTimeout(() => {
        this.child.stdout!.destroy();
        this.child.stderr!.destroy();
      }, PIPE_LINGER_MS).unref();
      report();
    });
    this.child.once('close', () => {
      closed = true;
      report();
    });
  }
}

export async function createBackend(spec: BackendSpec, tty: boolean): Promise<ProcessBackend> {
  return tty ? new PtyBackend(spec) : PipeBackend.spawn(spec);
}
