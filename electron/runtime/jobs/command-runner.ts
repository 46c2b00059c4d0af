import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { RpcError } from '../../../shared/protocol/index.js';
import { signalWords, type ExitInfo, type ProcessEvent, type ProcessSupervisor, type SupervisedProcess } from '../../exec/index.js';
import type { EventLog } from '../event-log.js';
import type { JobClock } from './job-clock.js';
import type { JobCommits } from './job-commits.js';
import { activeMsAt, type CommandSpec, type JobEntry, type LiveRun } from './job-entry.js';
import * as machine from './job-state.js';
import { EtaEstimator, OutputProgressParser } from './output-progress.js';

/** One job commits at most this often however fast it prints (~20 a second). */
export const MIN_COMMIT_INTERVAL_MS = 50;

export interface CommandRunnerOptions {
  readonly supervisor: ProcessSupervisor;
  readonly events: EventLog;
  readonly clock: JobClock;
  readonly commits: JobCommits;
  readonly killGraceMs?: number;
  /** Called after a run's final transition has been made. */
  readonly onRunEnded: (entry: JobEntry) => void;
  readonly onError: (message: string, error: unknown) => void;
}

function describeExit(exit: ExitInfo, spec: CommandSpec): string {
  if (exit.reason === 'timed-out') {
    const limit = spec.timeoutMs ?? 0;
    return `timed out after ${limit < 10_000 ? `${limit} ms` : `${Math.round(limit / 1000)} s`} of running time`;
  }
  if (exit.exitCode !== null) return `exited with code ${exit.exitCode}`;
  return signalWords(exit.signal);
}

/** Runs command jobs through the process supervisor (a pty, the login shell) and turns what happens into transitions. */
export class CommandRunner {
  private stopped = false;

  constructor(private readonly options: CommandRunnerOptions) {}

  /** Checks what can be checked before a job is accepted: a bad folder is an error now, not three failed runs later. */
  validate(spec: CommandSpec): void {
    if (!path.isAbsolute(spec.cwd)) throw RpcError.invalidParams(`invalid params for job/create: cwd: must be an absolute path, got ${spec.cwd}`);
    let isDir = false;
    try {
      isDir = fs.statSync(spec.cwd).isDirectory();
    } catch {
      // Reported below.
    }
    if (!isDir) throw RpcError.invalidParams(`invalid params for job/create: cwd: no such folder: ${spec.cwd}`);
  }

  start(entry: JobEntry): void {
    const live = this.newRun(entry);
    entry.live = live;
    void this.spawn(entry, live);
  }

  /** Takes over a process that is already running (an agent's command that outlived its turn) as the entry's current run. */
  adopt(entry: JobEntry, child: SupervisedProcess): void {
    const live = this.newRun(entry);
    entry.live = live;
    this.attach(entry, live, child);
  }

  private newRun(entry: JobEntry): LiveRun {
    return {
      run: entry.runs,
      process: null,
      cancelRequested: false,
      outputParser: entry.spec.progressFromOutput ? new OutputProgressParser() : null,
      eta: new EtaEstimator(),
      pendingProgress: undefined,
      progressTimer: null,
    };
  }

  private async spawn(entry: JobEntry, live: LiveRun): Promise<void> {
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
      if (live.cancelRequested) machine.cancel(entry.state, this.options.clock.now(), 'cancelled while starting');
      else machine.fail(entry.state, `could not start: ${(error as Error).message}`, this.options.clock.now());
      this.finish(entry, live, null, 'failed');
      return;
    }
    this.attach(entry, live, child);
  }

  private attach(entry: JobEntry, live: LiveRun, child: SupervisedProcess): void {
    live.process = child;
    this.options.commits.runStarted({ jobId: entry.state.id, run: live.run, logPath: child.description.logPath, startedAtMs: this.options.clock.now(), endedAtMs: null, outcome: null });
    const decoder = new StringDecoder('utf8');
    child.subscribe((event) => this.onEvent(entry, live, event, decoder));
    if (live.cancelRequested || this.stopped) void child.terminate({ ...(this.options.killGraceMs !== undefined ? { graceMs: this.options.killGraceMs } : {}) });
  }

  private onEvent(entry: JobEntry, live: LiveRun, event: ProcessEvent, decoder: StringDecoder): void {
    switch (event.type) {
      case 'output': {
        const delta = decoder.write(event.data);
        if (delta.length === 0) return;
        // The run's log file is the replay (job/log); the event log need not keep a copy.
        this.options.events.publish('job/output/delta', { jobId: entry.state.id, attempt: live.run, delta }, { unlogged: true });
        const found = live.outputParser?.push(delta) ?? null;
        if (found !== null) this.progress(entry, live, found);
        return;
      }
      case 'progress': {
        const { progress } = event;
        if (progress.state === 'hidden' || progress.state === 'indeterminate') this.progress(entry, live, null);
        else if (progress.percent !== null) this.progress(entry, live, progress.percent);
        return;
      }
      case 'exit':
        this.onExit(entry, live, event.exit);
        return;
      default:
        return;
    }
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

  private onExit(entry: JobEntry, live: LiveRun, exit: ExitInfo): void {
    if (live.progressTimer) clearTimeout(live.progressTimer);
    live.progressTimer = null;
    const now = this.options.clock.now();
    if (exit.reason === 'disposed' || (this.stopped && !live.cancelRequested)) {
      // App quit: the job stays `running` in the store and is re-queued at the next start.
      entry.live = null;
      return;
    }
    entry.exitCode = exit.exitCode;
    let outcome: string;
    if (live.cancelRequested) {
      machine.cancel(entry.state, now, `cancelled (${describeExit(exit, entry.spec)})`);
      outcome = 'cancelled';
    } else if (exit.reason === 'exited' && exit.exitCode === 0) {
      entry.state.detail = 'exited with code 0';
      machine.complete(entry.state, now);
      outcome = 'completed';
    } else {
      machine.fail(entry.state, describeExit(exit, entry.spec), now);
      outcome = exit.reason === 'timed-out' ? 'timed-out' : 'failed';
    }
    entry.etaMs = null;
    this.finish(entry, live, now, outcome);
  }

  private finish(entry: JobEntry, live: LiveRun, endedAt: number | null, outcome: string): void {
    entry.live = null;
    if (live.process) {
      this.options.commits.runEnded({ jobId: entry.state.id, run: live.run, endedAtMs: endedAt ?? this.options.clock.now(), outcome });
    }
    this.options.commits.mark(entry);
    this.options.onRunEnded(entry);
  }

  /** SIGTERM to the whole tree, SIGKILL after the grace period; resolves when it is gone. */
  async cancel(entry: JobEntry): Promise<void> {
    const live = entry.live;
    if (!live) return;
    live.cancelRequested = true;
    const child = live.process;
    if (!child) return;
    await child.terminate({ ...(this.options.killGraceMs !== undefined ? { graceMs: this.options.killGraceMs } : {}) });
    await child.exited;
  }

  /** No more events turn into transitions; the supervisor ends the trees. */
  stop(): void {
    this.stopped = true;
  }
}
