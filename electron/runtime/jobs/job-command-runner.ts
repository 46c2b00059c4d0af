import {
  describeTasks,
  incompleteUtf8Tail,
  signalWords,
  type DetachedEnvironment,
  type DetachedExit,
  type DetachedRunEvent,
  type DetachedRunHandle,
  type DetachedRunPlace,
  type DetachedRunState,
  type DetachedTask,
  type ExitInfo,
  type ProcessSupervisor,
  type SupervisedProcess,
} from '../../exec/index.js';
import type { JobRunRow, JobStore } from '../../store/job-store.js';
import type { EventLog } from '../event-log.js';
import type { JobClock } from './job-clock.js';
import type { JobCommits } from './job-commits.js';
import { activeMsAt, markRunning, newLiveRun, type CommandSpec, type JobEntry, type LiveRun } from './job-entry.js';
import * as machine from './job-state.js';
import { RunOutput } from './run-output.js';

export { MIN_COMMIT_INTERVAL_MS } from './run-output.js';

export interface JobCommandRunnerOptions {
  readonly supervisor: ProcessSupervisor;
  /** Where runs live so that they outlive the app (default: the supervisor's local one). */
  readonly environment: DetachedEnvironment;
  readonly events: EventLog;
  readonly clock: JobClock;
  readonly commits: JobCommits;
  /** Earlier runs of a job (a job array's retry re-submits the tasks that did not complete). */
  readonly store: Pick<JobStore, 'runs'>;
  readonly killGraceMs?: number;
  /** Called after a run's final transition has been made. */
  readonly onRunEnded: (entry: JobEntry) => void;
  readonly onError: (message: string, error: unknown) => void;
}

/** Words for how a run ended, as the job's detail. */
function describeExit(exit: DetachedExit | ExitInfo, spec: CommandSpec, timedOut: boolean): string {
  if (timedOut) {
    const limit = spec.timeoutMs ?? 0;
    return `timed out after ${limit < 10_000 ? `${limit} ms` : `${Math.round(limit / 1000)} s`} of running time`;
  }
  if ('detail' in exit && exit.detail) return exit.detail;
  if (exit.signal && exit.exitCode !== null) return `${signalWords(exit.signal)}, exit code ${exit.exitCode}`;
  if (exit.exitCode !== null) return `exited with code ${exit.exitCode}`;
  if (exit.signal) return signalWords(exit.signal);
  return 'ended without reporting an exit status';
}

/**
 * The tasks a job array's run submits: all of them, unless the run before it
 * (a retry follows a failed or cancelled run) recorded its tasks — then only
 * those that did not complete, as a person pressing retry expects.
 */
export function arrayIndicesFor(size: number, runs: readonly JobRunRow[], run: number): number[] {
  const all = Array.from({ length: size }, (_, index) => index);
  const before = runs.filter((row) => row.run < run).at(-1);
  if (!before?.tasks) return all;
  try {
    const tasks = JSON.parse(before.tasks) as DetachedTask[];
    const again = tasks.filter((task) => task.state !== 'completed').map((task) => task.index);
    return again.length > 0 ? again : all;
  } catch {
    return all;
  }
}

const isEnvironmentKind = (value: unknown): value is DetachedRunPlace['environment'] => value === 'local' || value === 'ssh' || value === 'slurm';

export const LOST_WHILE_AWAY = 'lost while Wheelhouse was not running: its process ended without reporting how';
const LOST_MARKER = '\r\n\x1b[33m[wheelhouse: this run was lost — its process ended without reporting an exit status]\x1b[0m\r\n';

/**
 * Runs command jobs and turns what happens into transitions. A run is
 * detached (exec's DetachedEnvironment): made durable where it will live,
 * started, its identity made durable with the "running" transition, its log
 * followed; after a restart it is re-attached, never started again. A command
 * the agent started inside the app and left running (adopted), or any run
 * where nothing can be detached (Windows), is an in-process supervised child
 * that ends with the app.
 */
export class JobCommandRunner {
  private stopped = false;
  private readonly output: RunOutput;

  constructor(private readonly options: JobCommandRunnerOptions) {
    this.output = new RunOutput({ events: options.events, clock: options.clock, commits: options.commits });
  }

  /** Starts the entry's next run (`entry.runs`); it stays `queued` until its identity is durable. */
  start(entry: JobEntry): void {
    const live = newLiveRun(entry.runs, entry.spec.progressFromOutput === true);
    entry.live = live;
    // Where nothing can be detached here, a local job runs inside the app; a remote one always detaches there.
    if (this.options.environment.unsupported && entry.spec.environmentId === undefined) void this.spawnInProcess(entry, live);
    else void this.startDetached(entry, live);
  }

  /** Takes over a process that is already running (an agent's command that outlived its turn) as the entry's current run. */
  adopt(entry: JobEntry, child: SupervisedProcess): void {
    const live = newLiveRun(entry.runs, false);
    entry.live = live;
    this.attachProcess(entry, live, child);
  }

  /**
   * After a restart: follows a run that was started before, from where
   * streaming had got to. One that is over already (ended or lost while
   * nobody watched) gets the rest of its log and its transition at once.
   */
  reattach(entry: JobEntry, row: JobRunRow, handle: DetachedRunHandle, state: DetachedRunState['state']): void {
    const live = newLiveRun(row.run, entry.spec.progressFromOutput === true, row.streamedBytes);
    live.place = handle;
    live.handle = handle;
    live.lostWhileAway = state === 'lost';
    entry.live = live;
    if (entry.state.status === 'running') this.armTimeout(entry, live);
    this.follow(entry, live, row.streamedBytes);
    if (state !== 'running') live.attachment?.poll();
  }

  /** The newest earlier run of `entry` whose process is still alive, if any: a new run must not start beside it. */
  aliveEarlierRun(runs: readonly JobRunRow[]): { row: JobRunRow; handle: DetachedRunHandle } | null {
    for (const row of [...runs].reverse()) {
      if (row.endedAtMs !== null) continue;
      const handle = this.handleOf(row);
      if (handle && this.options.environment.isAlive(handle)) return { row, handle };
    }
    return null;
  }

  /** A run row's recorded identity: the handle, or a place found started; null when it never started (or ran in-process). */
  handleOf(row: JobRunRow): DetachedRunHandle | null {
    if (row.handle === null) return null;
    let parsed: Partial<DetachedRunHandle>;
    try {
      parsed = JSON.parse(row.handle) as Partial<DetachedRunHandle>;
    } catch {
      return null;
    }
    if (!isEnvironmentKind(parsed.environment) || typeof parsed.runDir !== 'string' || typeof parsed.logPath !== 'string' || typeof parsed.runId !== 'string') return null;
    const place = {
      environment: parsed.environment,
      ...(typeof parsed.environmentId === 'string' ? { environmentId: parsed.environmentId } : {}),
      runId: parsed.runId,
      runDir: parsed.runDir,
      logPath: parsed.logPath,
    };
    // A Slurm array's tasks are part of its identity: without them a re-attached array would be followed as one plain job.
    const arrayIndices = Array.isArray(parsed.arrayIndices) && parsed.arrayIndices.every((index) => Number.isInteger(index)) ? { arrayIndices: parsed.arrayIndices } : {};
    if (typeof parsed.pid === 'number' && typeof parsed.startTime === 'string') return { ...place, pid: parsed.pid, startTime: parsed.startTime, ...arrayIndices };
    return this.options.environment.find(place);
  }

  /** SIGSTOP to the run's whole tree; its time limit stops too. Throws when there is nothing to stop yet. */
  pause(entry: JobEntry): void {
    const live = entry.live;
    if (live?.handle) {
      this.options.environment.signal(live.handle, 'SIGSTOP');
      this.disarmTimeout(live);
    } else if (live?.process) {
      live.process.pause();
    } else {
      throw new Error('it is still starting; try again in a moment');
    }
  }

  resume(entry: JobEntry): void {
    const live = entry.live;
    if (live?.handle) {
      this.options.environment.signal(live.handle, 'SIGCONT');
      this.armTimeout(entry, live);
    } else if (live?.process) {
      live.process.resume();
    }
  }

  /** SIGTERM to the whole tree, SIGKILL after the grace period; resolves once the run's transition is made. */
  async cancel(entry: JobEntry, detail?: string): Promise<void> {
    const live = entry.live;
    if (!live) return;
    live.cancelRequested = true;
    live.cancelDetail ??= detail ?? null;
    await this.terminate(live);
    await live.ended;
  }

  /** Quitting with "keep running": a detached run is no longer followed (its offset is kept); it is re-attached at the next start. */
  detach(entry: JobEntry): void {
    const live = entry.live;
    if (!live || live.process) return;
    this.disarmTimeout(live);
    // What it printed until now is delivered first; if it has just ended, that transition is made.
    live.attachment?.poll();
    live.attachment?.dispose();
    live.attachment = null;
    if (entry.live === live) this.output.storeStreamed(entry, live);
    this.output.stop(live);
  }

  /** Quitting with "keep running": a run inside the app cannot keep running; it is ended and fails, saying why. */
  async endInProcess(entry: JobEntry, detail: string): Promise<void> {
    const live = entry.live;
    if (!live?.process) return;
    live.cancelDetail = detail;
    live.timedOut = false;
    live.quitEnded = true;
    await live.process.terminate({ ...this.grace() });
    await live.ended;
  }

  /** No more events turn into transitions (after detach or cancel at quit). */
  stop(): void {
    this.stopped = true;
  }

  private grace(): { graceMs?: number } {
    return this.options.killGraceMs !== undefined ? { graceMs: this.options.killGraceMs } : {};
  }

  /**
   * Where the run will live is made durable first, then it starts, then its
   * identity is written in the same commit as "running": a crash at any
   * point finds it again at the next start rather than starting another.
   */
  private async startDetached(entry: JobEntry, live: LiveRun): Promise<void> {
    const { environment, commits, clock } = this.options;
    const jobId = entry.state.id;
    try {
      live.place = environment.prepare(`${jobId}-${live.run}`, entry.spec.environmentId);
    } catch (error) {
      this.failToStart(entry, live, error);
      return;
    }
    commits.runStarted({ jobId, run: live.run, logPath: live.place.logPath, startedAtMs: clock.now(), endedAtMs: null, outcome: null, handle: JSON.stringify(live.place), streamedBytes: 0 });
    try {
      await commits.committed();
    } catch {
      return; // the store closed (quitting): nothing started; the next start begins this run afresh
    }
    if (live.cancelRequested) {
      this.failToStart(entry, live, null);
      return;
    }
    const { spec } = entry;
    const arrayIndices = spec.arrayTasks ? arrayIndicesFor(spec.arrayTasks, this.options.store.runs(jobId), live.run) : null;
    let handle: DetachedRunHandle;
    try {
      handle = await environment.startDetached(live.place, {
        command: spec.command,
        cwd: spec.cwd,
        ...(spec.env ? { env: spec.env } : {}),
        ...(spec.sandbox ? { sandbox: spec.sandbox } : {}),
        ...(arrayIndices ? { arrayIndices } : {}),
        cols: 120,
        rows: 30,
      });
    } catch (error) {
      this.failToStart(entry, live, error);
      return;
    }
    live.handle = handle;
    // Quitting meanwhile: it runs on, and the next start finds it by its folder.
    if (this.stopped && !live.cancelRequested) return;
    commits.runUpdated({ jobId, run: live.run, handle: JSON.stringify(handle) });
    this.begin(entry, live);
    this.follow(entry, live, 0);
    if (live.cancelRequested) void this.terminate(live);
  }

  /** The fallback where nothing can be detached: a supervised child in a pty, ended with the app. */
  private async spawnInProcess(entry: JobEntry, live: LiveRun): Promise<void> {
    const { spec } = entry;
    let child: SupervisedProcess;
    try {
      child = await this.options.supervisor.spawn({
        command: spec.command,
        cwd: spec.cwd,
        ...(spec.env ? { env: spec.env } : {}),
        ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
        ...(spec.sandbox ? { sandbox: spec.sandbox } : {}),
        tty: true,
        cols: 120,
        rows: 30,
        label: `job ${entry.state.id} run ${live.run}`,
      });
    } catch (error) {
      this.failToStart(entry, live, error);
      return;
    }
    this.begin(entry, live);
    this.attachProcess(entry, live, child);
  }

  /** The run is running (markRunning); its time limit starts. */
  private begin(entry: JobEntry, live: LiveRun): void {
    markRunning(entry, this.options.clock.now());
    this.options.commits.mark(entry);
    if (live.handle) this.armTimeout(entry, live);
  }

  private failToStart(entry: JobEntry, live: LiveRun, error: unknown): void {
    const now = this.options.clock.now();
    if (live.cancelRequested) machine.cancel(entry.state, now, live.cancelDetail ?? 'cancelled while starting');
    else machine.fail(entry.state, `could not start: ${(error as Error).message}`, now);
    this.finish(entry, live, now, live.cancelRequested ? 'cancelled' : 'failed');
  }

  private follow(entry: JobEntry, live: LiveRun, fromOffset: number): void {
    live.attachment = this.options.environment.attach(live.handle!, fromOffset, (event) => this.onDetachedEvent(entry, live, event));
  }

  private onDetachedEvent(entry: JobEntry, live: LiveRun, event: DetachedRunEvent): void {
    switch (event.type) {
      case 'output':
        this.output.text(entry, live, event.offset, event.data.toString('utf8'));
        return;
      case 'progress':
        this.output.terminalProgress(entry, live, event.progress);
        return;
      case 'waiting':
        this.onWaiting(entry, live, event.detail);
        return;
      case 'tasks':
        this.onTasks(entry, live, event.tasks);
        return;
      case 'end':
        this.onDetachedEnd(entry, live, event.end);
        return;
    }
  }

  /** The scheduler holds the run (Slurm PENDING): the job's detail says so while it waits, and clears once it begins. */
  private onWaiting(entry: JobEntry, live: LiveRun, detail: string | null): void {
    if (entry.state.status !== 'running') return;
    const shown = entry.state.detail;
    if (detail !== null) entry.state.detail = detail;
    else if (shown !== null && shown === live.waitingDetail) entry.state.detail = null;
    else return;
    live.waitingDetail = detail;
    entry.state.updatedAt = this.options.clock.now();
    this.options.commits.mark(entry);
  }

  /** A job array's tasks changed: stored with the run, and while it runs the job's detail counts them. */
  private onTasks(entry: JobEntry, live: LiveRun, tasks: readonly DetachedTask[]): void {
    this.options.commits.runUpdated({ jobId: entry.state.id, run: live.run, tasks: JSON.stringify(tasks) });
    if (entry.state.status === 'running') {
      entry.state.detail = describeTasks(tasks);
      entry.state.updatedAt = this.options.clock.now();
    }
    this.options.commits.mark(entry);
  }

  private onDetachedEnd(entry: JobEntry, live: LiveRun, end: Extract<DetachedRunEvent, { type: 'end' }>['end']): void {
    live.attachment = null;
    this.disarmTimeout(live);
    this.output.storeStreamed(entry, live);
    const now = this.options.clock.now();
    let outcome: string;
    if (end.state === 'lost') {
      this.options.environment.appendNote(live.place!, LOST_MARKER);
      entry.exitCode = null;
      const detail = live.lostWhileAway ? LOST_WHILE_AWAY : 'lost: its process ended without reporting how (ended from outside Wheelhouse?)';
      if (live.cancelRequested) machine.cancel(entry.state, now, live.cancelDetail ?? 'cancelled');
      // Run again from the start only where the person said that is safe (and retries are left).
      else if (entry.spec.rerunIfLost) machine.fail(entry.state, detail, now);
      else machine.failWithoutRetry(entry.state, `${detail}; retry it if running it again from the start is safe`, now);
      outcome = live.cancelRequested ? 'cancelled' : 'lost';
    } else {
      outcome = this.exitTransition(entry, live, end.exit, now);
    }
    this.finish(entry, live, now, outcome);
  }

  /** The transition an exit makes; returns the run's outcome. */
  private exitTransition(entry: JobEntry, live: LiveRun, exit: DetachedExit | ExitInfo, now: number): string {
    entry.exitCode = exit.exitCode;
    const timedOut = live.timedOut || ('reason' in exit && exit.reason === 'timed-out');
    if (live.quitEnded) {
      machine.failWithoutRetry(entry.state, live.cancelDetail ?? 'ended when Wheelhouse quit', now);
      return 'interrupted';
    }
    if (live.cancelRequested) {
      machine.cancel(entry.state, now, live.cancelDetail ?? `cancelled; it ${describeExit(exit, entry.spec, false)}`);
      return 'cancelled';
    }
    if (!timedOut && exit.exitCode === 0 && exit.signal === null) {
      entry.state.detail = 'exited with code 0';
      machine.complete(entry.state, now);
      return 'completed';
    }
    machine.fail(entry.state, describeExit(exit, entry.spec, timedOut), now);
    return timedOut ? 'timed-out' : 'failed';
  }

  /** A supervised child as the run: its output, progress and exit (decoded at character boundaries, with log offsets). */
  private attachProcess(entry: JobEntry, live: LiveRun, child: SupervisedProcess): void {
    live.process = child;
    this.options.commits.runStarted({ jobId: entry.state.id, run: live.run, logPath: child.logPath, startedAtMs: this.options.clock.now(), endedAtMs: null, outcome: null, handle: null, streamedBytes: 0 });
    let carry = Buffer.alloc(0);
    child.subscribe((event) => {
      switch (event.type) {
        case 'output': {
          const data = carry.length > 0 ? Buffer.concat([carry, event.data]) : event.data;
          const tail = incompleteUtf8Tail(data);
          const offset = event.offset - carry.length;
          carry = Buffer.from(data.subarray(data.length - tail));
          this.output.text(entry, live, offset, data.subarray(0, data.length - tail).toString('utf8'));
          return;
        }
        case 'progress':
          this.output.terminalProgress(entry, live, event.progress);
          return;
        case 'exit':
          this.onProcessExit(entry, live, event.exit);
          return;
        default:
          return;
      }
    });
    if (live.cancelRequested || this.stopped) void child.terminate({ ...this.grace() });
  }

  private onProcessExit(entry: JobEntry, live: LiveRun, exit: ExitInfo): void {
    if (exit.reason === 'disposed' || (this.stopped && !live.cancelRequested && !live.quitEnded)) {
      // The app went down without a word about it: the next start finds the run gone.
      this.output.stop(live);
      entry.live = null;
      live.markEnded();
      return;
    }
    const now = this.options.clock.now();
    const outcome = this.exitTransition(entry, live, exit, now);
    this.finish(entry, live, now, outcome);
  }

  private finish(entry: JobEntry, live: LiveRun, endedAt: number, outcome: string): void {
    entry.live = null;
    entry.etaMs = null;
    this.disarmTimeout(live);
    this.output.stop(live);
    if (live.process || live.place) this.options.commits.runEnded({ jobId: entry.state.id, run: live.run, endedAtMs: endedAt, outcome });
    this.options.commits.mark(entry);
    live.markEnded();
    this.options.onRunEnded(entry);
  }

  /** Ends the run's tree (or, while it starts, leaves the start to see the cancel). */
  private async terminate(live: LiveRun): Promise<void> {
    const graceMs = this.options.killGraceMs ?? 2000;
    if (live.handle) {
      await this.options.environment.terminate(live.handle, graceMs);
      // Its end is recorded by now: deliver it without waiting for the next look.
      live.attachment?.poll();
    } else if (live.process) {
      await live.process.terminate({ graceMs });
    }
  }

  /** The time limit counts running time only, also what passed while Wheelhouse was not running. */
  private armTimeout(entry: JobEntry, live: LiveRun): void {
    const limit = entry.spec.timeoutMs;
    if (limit === undefined || live.timeoutTimer || entry.live !== live) return;
    const left = Math.max(0, limit - activeMsAt(entry, this.options.clock.now()));
    live.timeoutTimer = setTimeout(() => {
      live.timeoutTimer = null;
      if (entry.live !== live || live.cancelRequested) return;
      live.timedOut = true;
      void this.terminate(live);
    }, left);
  }

  private disarmTimeout(live: LiveRun): void {
    if (live.timeoutTimer) clearTimeout(live.timeoutTimer);
    live.timeoutTimer = null;
  }
}
