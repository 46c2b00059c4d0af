import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../../store/private-files.js';
import { ExecError } from '../exec-error.js';
import { commandLineOf, isSameProcess, startTimeOf } from '../process-identity.js';
import { hasProc, isAlive, readStat, signalTree, treeMembers } from '../process-tree.js';
import type { SpawnSpec } from '../types.js';
import type {
  DetachedAttachment,
  DetachedEnvironment,
  DetachedRunEvent,
  DetachedRunHandle,
  DetachedRunPlace,
  DetachedRunSpec,
  DetachedRunState,
} from './detached-run.js';
import { appendLogNote, checkRunId, logFileSize, parseExit, readLogFile } from './run-log-file.js';
import { RunFollower } from './run-follower.js';
import { commandScript, RUN_FILES, wrapperScript } from './run-scripts.js';

/** A spec turned into what to execute, as the supervisor does for its own children. */
export interface PreparedLaunch {
  /** What runs (wrapped in the sandbox when there is one). */
  readonly launch: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export interface LocalDetachedOptions {
  /** Where each run's folder is made. */
  readonly runsDir: string;
  /** Validates a spec and resolves its argv, environment and sandbox (the supervisor's rules). */
  readonly prepareLaunch: (spec: SpawnSpec) => Promise<PreparedLaunch>;
  /** How often a followed run is checked when no file event arrives (default 500 ms). */
  readonly pollMs?: number;
  /** Default log cap (64 MiB). */
  readonly logCapBytes?: number;
}

const TREE_POLL_MS = 25;
/** After SIGKILL to the command, how long the wrapper may take to record the end before it is killed too. */
const WRAPPER_END_MS = 3000;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function findScript(): { path: string; flavour: 'util-linux' | 'bsd' } | null {
  if (process.platform === 'win32') return null;
  for (const candidate of ['/usr/bin/script', '/bin/script', '/usr/local/bin/script']) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return { path: candidate, flavour: process.platform === 'linux' ? 'util-linux' : 'bsd' };
    } catch {
      // Try the next one.
    }
  }
  return null;
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Runs on this machine that outlive the app. The app starts `/bin/sh run.sh`
 * detached (its own session, no terminal of the app's, stdio to /dev/null);
 * the wrapper owns the command's terminal through `script` and appends what
 * it shows to the log, so quitting, updating or killing the app changes
 * nothing for the run. See run-scripts.ts for the wrapper itself.
 */
export class LocalDetachedEnvironment implements DetachedEnvironment {
  readonly kind = 'local' as const;
  readonly unsupported: string | null;
  private readonly script: { path: string; flavour: 'util-linux' | 'bsd' } | null;
  private readonly pollMs: number;
  private readonly logCapBytes: number;

  constructor(private readonly options: LocalDetachedOptions) {
    this.script = findScript();
    this.unsupported =
      process.platform === 'win32'
        ? 'Windows: jobs run inside Wheelhouse and end with it'
        : this.script
          ? null
          : 'the `script` command (util-linux) is not installed, so jobs run inside Wheelhouse and end with it';
    this.pollMs = options.pollMs ?? 500;
    this.logCapBytes = options.logCapBytes ?? 64 * 1024 * 1024;
  }

  prepare(runId: string): DetachedRunPlace {
    checkRunId(runId);
    const runDir = path.join(this.options.runsDir, runId);
    const place: DetachedRunPlace = { environment: 'local', runId, runDir, logPath: path.join(runDir, RUN_FILES.log) };
    try {
      ensurePrivateDir(this.options.runsDir);
      // A folder left by a start that never happened (the app died before spawning) is reused.
      if (fs.existsSync(runDir)) {
        if (this.find(place)) throw new ExecError('invalid-spec', `run ${runId} has already started`);
        fs.rmSync(runDir, { recursive: true, force: true });
      }
      ensurePrivateDir(runDir);
      fs.closeSync(fs.openSync(place.logPath, 'wx', 0o600));
    } catch (error) {
      if (error instanceof ExecError) throw error;
      throw new ExecError('log-failed', `cannot make the run folder ${runDir}: ${(error as Error).message}`);
    }
    return place;
  }

  async startDetached(place: DetachedRunPlace, spec: DetachedRunSpec): Promise<DetachedRunHandle> {
    if (this.unsupported || !this.script) throw new ExecError('spawn-failed', `cannot run detached: ${this.unsupported}`);
    const cols = spec.cols ?? 120;
    const rows = spec.rows ?? 30;
    const { launch, env } = await this.options.prepareLaunch({
      command: spec.command,
      cwd: spec.cwd,
      ...(spec.env ? { env: spec.env } : {}),
      ...(spec.sandbox ? { sandbox: spec.sandbox } : {}),
      tty: true,
      cols,
      rows,
    });
    const input = {
      runDir: place.runDir,
      argv: launch,
      shell: env.SHELL ?? null,
      cols,
      rows,
      logCapBytes: spec.logCapBytes ?? this.logCapBytes,
      // The app's own: what the command would have, started directly.
      umask: process.umask(),
      scriptPath: this.script.path,
      scriptFlavour: this.script.flavour,
    };
    const wrapper = path.join(place.runDir, RUN_FILES.wrapper);
    try {
      fs.writeFileSync(path.join(place.runDir, RUN_FILES.command), commandScript(input), { mode: 0o600 });
      fs.writeFileSync(wrapper, wrapperScript(input), { mode: 0o600 });
    } catch (error) {
      throw new ExecError('log-failed', `cannot write the run's scripts in ${place.runDir}: ${(error as Error).message}`);
    }
    const child = spawn('/bin/sh', [wrapper], {
      cwd: spec.cwd,
      env: { ...env, TERM: env.TERM ?? 'xterm-256color' },
      // Its own session: no terminal of ours to hang up, no signal to our group reaches it.
      detached: true,
      stdio: 'ignore',
    });
    const pid = await new Promise<number>((resolve, reject) => {
      child.once('spawn', () => resolve(child.pid!));
      child.once('error', (error) => reject(new ExecError('spawn-failed', `cannot start the run's wrapper: ${error.message}`)));
    });
    // Reaped by Node when it ends while we live; it must never keep the app running.
    child.unref();
    // A wrapper gone already (its shell failed at once) has no start time; `state` reads its files.
    return { ...place, pid, startTime: startTimeOf(pid) ?? 'gone' };
  }

  find(place: DetachedRunPlace): DetachedRunHandle | null {
    const text = readText(path.join(place.runDir, RUN_FILES.wrapperPid));
    const pid = text === null ? NaN : Number(text.trim());
    if (!Number.isInteger(pid) || pid <= 0) return null;
    const wrapper = path.join(place.runDir, RUN_FILES.wrapper);
    // Alive and ours (its command line names this run's wrapper), or gone: either way it did start.
    const ours = commandLineOf(pid)?.includes(wrapper) ?? false;
    return { ...place, pid, startTime: (ours && startTimeOf(pid)) || 'gone' };
  }

  isAlive(handle: DetachedRunHandle): boolean {
    return handle.startTime !== 'gone' && isSameProcess(handle.pid, handle.startTime);
  }

  state(handle: DetachedRunHandle): DetachedRunState {
    const ended = () => {
      const text = readText(path.join(handle.runDir, RUN_FILES.exit));
      return text === null ? null : { state: 'ended' as const, exit: parseExit(text) };
    };
    const before = ended();
    if (before) return before;
    if (this.isAlive(handle)) return { state: 'running' };
    // It may have written `exit` between the two looks.
    const after = ended();
    if (after) return after;
    // The wrapper was killed after the command recorded its status: the end is known, if not all of the log.
    const status = readText(path.join(handle.runDir, RUN_FILES.status));
    return status === null ? { state: 'lost' } : { state: 'ended', exit: parseExit(status) };
  }

  attach(handle: DetachedRunHandle, fromOffset: number, listener: (event: DetachedRunEvent) => void): DetachedAttachment {
    return new RunFollower({ runDir: handle.runDir, logPath: handle.logPath, fromOffset, state: () => this.state(handle), pollMs: this.pollMs, listener });
  }

  signal(handle: DetachedRunHandle, signal: NodeJS.Signals): void {
    if (!this.isAlive(handle)) return;
    if (signal === 'SIGSTOP') {
      this.stopCommand(handle);
      return;
    }
    // Everything of the run continues, `script` included should it have stopped itself.
    if (signal === 'SIGCONT') {
      signalTree(handle.pid, signal);
      return;
    }
    // Before the command has started, its wrapper is what there is to end.
    signalTree(this.commandLeader(handle) ?? handle.pid, signal);
  }

  async terminate(handle: DetachedRunHandle, graceMs: number): Promise<void> {
    if (!this.isAlive(handle)) return;
    // Just started: its command records its pid within moments; the wrapper tree is the fallback.
    const leader = this.commandLeader(handle) ?? (await this.waitForLeader(handle));
    const target = leader ?? handle.pid;
    const known = signalTree(target, 'SIGTERM');
    // A paused run (its command stopped) must run to its end and record it.
    signalTree(handle.pid, 'SIGCONT', known);
    if (!(await this.waitForEnd(handle, graceMs))) {
      signalTree(target, 'SIGKILL', known);
      if (!(await this.waitForEnd(handle, WRAPPER_END_MS))) {
        signalTree(handle.pid, 'SIGKILL', known);
        await this.waitForEnd(handle, WRAPPER_END_MS);
      }
    }
    // Whatever of the command outlived its wrapper (it ignored the hang-up) goes too: these were seen as its members.
    for (const member of known) {
      if (!isAlive(member)) continue;
      try {
        process.kill(member.pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
  }

  readLog(place: DetachedRunPlace, offset: number, length: number): Buffer {
    return readLogFile(place.logPath, offset, length);
  }

  logSize(place: DetachedRunPlace): number {
    return logFileSize(place.logPath);
  }

  appendNote(place: DetachedRunPlace, text: string): void {
    appendLogNote(place.logPath, text);
  }

  remove(place: DetachedRunPlace): void {
    fs.rmSync(place.runDir, { recursive: true, force: true });
  }

  /**
   * SIGSTOP to every process of the command except its session leader
   * (command.sh, which only waits): `script` stops itself when its own child
   * stops, and a continue racing with that would leave it stopped with the
   * output held in the terminal. Members are listed again until none is new,
   * so a child forked meanwhile is stopped too. Without /proc, the groups.
   */
  private stopCommand(handle: DetachedRunHandle): void {
    const leader = this.commandLeader(handle);
    if (leader === null || !hasProc) {
      signalTree(leader ?? handle.pid, 'SIGSTOP');
      return;
    }
    const stopped = new Set<number>([leader]);
    for (let round = 0; round < 8; round += 1) {
      const fresh = treeMembers(leader).filter((member) => !stopped.has(member.pid));
      if (fresh.length === 0) return;
      for (const member of fresh) {
        stopped.add(member.pid);
        if (!isAlive(member)) continue;
        try {
          process.kill(member.pid, 'SIGSTOP');
        } catch {
          // Gone meanwhile.
        }
      }
    }
  }

  /** True once the run has ended (the wrapper recorded it, or is gone). */
  private async waitForEnd(handle: DetachedRunHandle, ms: number): Promise<boolean> {
    const deadline = performance.now() + ms;
    for (;;) {
      if (!this.isAlive(handle)) return true;
      if (performance.now() >= deadline) return false;
      await delay(TREE_POLL_MS);
    }
  }

  /** The command's leader once command.sh has recorded it (null if it has not within `ms`, or the run ended). */
  private async waitForLeader(handle: DetachedRunHandle, ms = 1000): Promise<number | null> {
    const deadline = performance.now() + ms;
    for (;;) {
      const leader = this.commandLeader(handle);
      if (leader !== null || !this.isAlive(handle) || performance.now() >= deadline) return leader;
      await delay(TREE_POLL_MS);
    }
  }

  /** The pid command.sh recorded, whatever became of it. */
  private recordedLeader(handle: DetachedRunHandle): number | null {
    const text = readText(path.join(handle.runDir, RUN_FILES.commandPid));
    const pid = text === null ? NaN : Number(text.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  }

  /**
   * The command's session leader while the wrapper lives, checked to be the
   * wrapper's descendant where /proc can tell (a stale pid file never points
   * a signal at a stranger).
   */
  private commandLeader(handle: DetachedRunHandle): number | null {
    const pid = this.recordedLeader(handle);
    if (pid === null || !this.isAlive(handle)) return null;
    if (!hasProc) return pid;
    let current = readStat(pid);
    if (!current || current.session !== pid) return null;
    for (let depth = 0; depth < 4 && current; depth += 1) {
      if (current.ppid === handle.pid) return pid;
      current = readStat(current.ppid);
    }
    return null;
  }
}
