import { performance } from 'node:perf_hooks';
import type { ProcessBackend, RawExit, RemoteProcessTree } from './backends.js';
import { ExecError } from './exec-error.js';
import { readLog } from './output-log.js';
import type { OutputPipeline } from './output-pipeline.js';
import { isAlive, signalTree, treeMembers, type ProcessIdentity } from './process-tree.js';
import type { ExitInfo, ExitReason, ProcessEvent, ProcessState, SubscribeOptions, Subscription } from './types.js';

export interface ProcessDescription {
  readonly id: string;
  readonly label: string | null;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly tty: boolean;
  readonly sandboxed: boolean;
  readonly logPath: string;
  readonly timeoutMs: number | null;
  readonly killGraceMs: number;
  readonly killTreeOnExit: boolean;
}

/** How often termination checks whether the whole tree is gone. */
const TREE_POLL_MS = 25;
/** After SIGKILL, how long to wait for the tree to disappear before reporting anyway. */
const KILL_WAIT_MS = 5000;
/** How often termination asks another machine whether the tree is gone (each look is a round trip). */
const REMOTE_TREE_POLL_MS = 100;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One supervised child: its output pipeline, its state (running, paused,
 * exited), its timeout clock (stopped while paused), and whole-tree control.
 */
export class SupervisedProcess {
  readonly startedAt = Date.now();
  readonly exited: Promise<ExitInfo>;
  private resolveExit!: (exit: ExitInfo) => void;
  private exitInfo: ExitInfo | null = null;
  private paused = false;
  private pausedSince = 0;
  private pausedTotal = 0;
  private readonly startedClock = performance.now();
  private timeoutTimer: NodeJS.Timeout | null = null;
  private timeoutLeft: number | null;
  private timeoutStartedAt = 0;
  private endReason: ExitReason | null = null;
  private terminating: Promise<ExitInfo> | null = null;
  /** Members seen when termination began; they may have left the tree (orphans) by the SIGKILL. */
  private known: ProcessIdentity[] = [];

  constructor(
    readonly description: ProcessDescription,
    private readonly backend: ProcessBackend,
    private readonly output: OutputPipeline,
  ) {
    this.exited = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
    this.timeoutLeft = description.timeoutMs;
    backend.start(
      (stream, chunk) => output.push(stream, chunk),
      (exit) => void this.onLeaderExit(exit),
    );
    this.armTimeout();
  }

  get id(): string {
    return this.description.id;
  }

  /** The capped log of everything the process wrote (mode 0600). */
  get logPath(): string {
    return this.description.logPath;
  }

  /** The OS process id of the leader (bubblewrap's, when sandboxed). */
  get pid(): number {
    return this.backend.pid;
  }

  /** In a terminal: the program the person started at the shell and is still running (null at the prompt). */
  foregroundProgram(): string | null {
    return this.exitInfo ? null : this.backend.foregroundProgram();
  }

  get state(): ProcessState {
    return this.exitInfo ? 'exited' : this.paused ? 'paused' : 'running';
  }

  get exit(): ExitInfo | null {
    return this.exitInfo;
  }

  get outputBytes(): number {
    return this.output.receivedBytes;
  }

  /** True while flow control holds the output (a consumer lags behind). */
  get outputPaused(): boolean {
    return this.output.outputPaused;
  }

  /** The most output any flow-controlled subscriber has had unacknowledged. */
  get maxUnackedBytes(): number {
    return this.output.maxUnackedBytes;
  }

  subscribe(listener: (event: ProcessEvent) => void, options?: SubscribeOptions): Subscription {
    return this.output.subscribe(listener, options);
  }

  /** Delivers output still waiting for its batch to close (for a caller about to answer now). */
  flushOutput(): void {
    if (!this.exitInfo) this.output.flush();
  }

  /** Head + tail of the output so far, with a marker for what lies between. */
  modelView(): string {
    return this.output.modelText();
  }

  /** Bytes of the on-disk log (what was streamed, plus the cap marker). */
  readLog(offset: number, length: number): Buffer {
    return readLog(this.description.logPath, offset, length);
  }

  write(data: string | Buffer): void {
    this.requireRunning('write to');
    this.backend.write(data);
  }

  endInput(): void {
    this.requireRunning('close the input of');
    this.backend.endInput();
  }

  resize(cols: number, rows: number): void {
    this.requireRunning('resize');
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 1 || rows < 1 || cols > 2000 || rows > 2000) {
      throw new ExecError('invalid-spec', `a terminal size must be whole numbers from 1 to 2000, got ${cols}x${rows}`);
    }
    if (!this.description.tty) throw new ExecError('invalid-spec', `process ${this.id} runs without a terminal; it has no size`);
    this.backend.resize(cols, rows);
  }

  /** Stops the whole tree (SIGSTOP); its timeout clock stops too. */
  pause(): void {
    this.requireRunning('pause');
    if (this.paused) return;
    this.signalAll('SIGSTOP');
    this.paused = true;
    this.pausedSince = performance.now();
    this.disarmTimeout();
    this.output.flush();
    this.output.emit({ type: 'state', state: 'paused' });
  }

  /** Continues the whole tree (SIGCONT). */
  resume(): void {
    this.requireRunning('resume');
    if (!this.paused) return;
    this.signalAll('SIGCONT');
    this.paused = false;
    this.pausedTotal += performance.now() - this.pausedSince;
    this.armTimeout();
    this.output.emit({ type: 'state', state: 'running' });
  }

  /**
   * Ends the whole tree: SIGTERM (and SIGCONT, so stopped members receive
   * it), then SIGKILL after the grace period. Resolves once the leader has
   * exited and no member of the tree is left.
   */
  terminate(options: { graceMs?: number; reason?: ExitReason } = {}): Promise<ExitInfo> {
    if (this.exitInfo) return Promise.resolve(this.exitInfo);
    this.endReason ??= options.reason ?? 'terminated';
    const graceMs = options.graceMs ?? this.description.killGraceMs;
    const remote = this.backend.remote;
    this.terminating ??= remote ? this.killRemoteTree(remote, graceMs) : this.killTree(graceMs);
    return this.terminating;
  }

  /** SIGKILL to the whole tree at once, for a host that is exiting now. */
  killNow(): void {
    if (this.exitInfo) return;
    this.endReason ??= 'disposed';
    if (this.backend.remote) void this.backend.remote.signal('SIGKILL').catch(() => undefined);
    else this.known = signalTree(this.pid, 'SIGKILL', this.known);
  }

  /** A whole-tree signal that does not wait: locally at once, on another machine through its connection. */
  private signalAll(signal: 'SIGSTOP' | 'SIGCONT'): void {
    if (this.backend.remote) void this.backend.remote.signal(signal).catch(() => undefined);
    else signalTree(this.pid, signal);
  }

  /**
   * killTree for a command on another machine: the signals go through its
   * connection to the command's session there. A connection that is gone
   * cannot be asked; the channel's close then ends the process here.
   */
  private async killRemoteTree(remote: RemoteProcessTree, graceMs: number): Promise<ExitInfo> {
    this.disarmTimeout();
    const goneThere = () => remote.gone().catch(() => true);
    try {
      await remote.signal('SIGTERM');
      await remote.signal('SIGCONT');
      const deadline = performance.now() + graceMs;
      while (performance.now() < deadline && !(this.exitInfo && (await goneThere()))) await delay(REMOTE_TREE_POLL_MS);
      if (!(this.exitInfo && (await goneThere()))) {
        await remote.signal('SIGKILL');
        const killDeadline = performance.now() + KILL_WAIT_MS;
        while (performance.now() < killDeadline && !(await goneThere())) await delay(REMOTE_TREE_POLL_MS);
      }
    } catch {
      // The connection is down: nothing more can be sent; the exit comes with the channel's close.
    }
    return this.exited;
  }

  private async killTree(graceMs: number): Promise<ExitInfo> {
    this.disarmTimeout();
    this.known = signalTree(this.pid, 'SIGTERM', this.known);
    signalTree(this.pid, 'SIGCONT', this.known);
    const deadline = performance.now() + graceMs;
    while (performance.now() < deadline && !(this.exitInfo && this.treeGone())) await delay(TREE_POLL_MS);
    if (!(this.exitInfo && this.treeGone())) {
      this.known = signalTree(this.pid, 'SIGKILL', this.known);
      const killDeadline = performance.now() + KILL_WAIT_MS;
      while (performance.now() < killDeadline && !this.treeGone()) await delay(TREE_POLL_MS);
    }
    return this.exited;
  }

  private treeGone(): boolean {
    return this.known.every((member) => !isAlive(member)) && treeMembers(this.pid).length === 0;
  }

  private async onLeaderExit(raw: RawExit): Promise<void> {
    this.disarmTimeout();
    if (this.paused) this.pausedTotal += performance.now() - this.pausedSince;
    this.paused = false;
    // What the command left in its session (background jobs, `nohup`) goes with it.
    const remote = this.backend.remote;
    if (remote) {
      if (this.description.killTreeOnExit && !this.terminating && !raw.lost) {
        void remote.signal('SIGTERM').catch(() => undefined);
        setTimeout(() => void remote.signal('SIGKILL').catch(() => undefined), this.description.killGraceMs).unref();
      }
    } else if (this.description.killTreeOnExit && !this.terminating && treeMembers(this.pid).length > 0) {
      this.known = signalTree(this.pid, 'SIGTERM');
      signalTree(this.pid, 'SIGCONT', this.known);
      setTimeout(() => signalTree(this.pid, 'SIGKILL', this.known), this.description.killGraceMs).unref();
    }
    this.output.close();
    const durationMs = performance.now() - this.startedClock;
    this.exitInfo = {
      exitCode: raw.exitCode,
      signal: raw.signal,
      reason: raw.lost && this.endReason !== 'terminated' ? 'connection-lost' : (this.endReason ?? 'exited'),
      durationMs: Math.round(durationMs),
      activeMs: Math.round(durationMs - this.pausedTotal),
      outputBytes: this.output.receivedBytes,
      droppedBytes: this.output.receivedBytes - this.output.deliveredBytes,
      ...(raw.lost ? { detail: raw.lost } : {}),
    };
    this.output.emit({ type: 'exit', exit: this.exitInfo });
    this.resolveExit(this.exitInfo);
  }

  private armTimeout(): void {
    if (this.timeoutLeft === null || this.timeoutTimer) return;
    const started = performance.now();
    this.timeoutTimer = setTimeout(() => {
      this.timeoutTimer = null;
      this.timeoutLeft = 0;
      void this.terminate({ reason: 'timed-out' });
    }, this.timeoutLeft);
    this.timeoutStartedAt = started;
  }

  private disarmTimeout(): void {
    if (!this.timeoutTimer) return;
    clearTimeout(this.timeoutTimer);
    this.timeoutTimer = null;
    this.timeoutLeft = Math.max(0, (this.timeoutLeft ?? 0) - (performance.now() - this.timeoutStartedAt));
  }

  private requireRunning(action: string): void {
    if (this.exitInfo) throw new ExecError('not-running', `cannot ${action} process ${this.id}: it has exited`);
  }
}
