import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../../store/private-files.js';
import { ExecError } from '../exec-error.js';
import type {
  DetachedAttachment,
  DetachedEnvironment,
  DetachedRunEvent,
  DetachedRunHandle,
  DetachedRunPlace,
  DetachedRunSpec,
  DetachedRunState,
} from '../detached/detached-run.js';
import { appendLogNote, checkRunId, logFileSize, readLogFile } from '../detached/run-log-file.js';
import { shellQuote } from '../detached/run-scripts.js';
import { REMOTE_SANDBOX_REFUSAL, remoteDirWord } from './remote-command.js';
import { RemoteFollower, type RemoteLook } from './remote-follower.js';
import { RemoteLogStream } from './remote-log-stream.js';
import type { RemoteShell } from './remote-shell.js';

export interface MirroredEnvironmentOptions {
  /** The environment's id (Machines): handles carry it so a run is found again where it lives. */
  readonly environmentId: string;
  readonly shell: RemoteShell;
  /** This machine's folder for copies of the logs: `<runsDir>/<environment id>`. */
  readonly mirrorDir: string;
  /** Folder of runs where the far side sees it: absolute, or relative to its home (default `.wheelhouse/runs`). */
  readonly remoteRunsDir?: string;
  /** How often a run is looked at when its log cannot be streamed (the far side has no Perl). */
  readonly pollMs?: number;
  /** How often a streamed run is looked at for a state its end marker does not show (default 1 s). */
  readonly statePollMs?: number;
  /** False: follow logs by looks alone, as on a host without Perl (to measure or rule out the stream). Default true. */
  readonly streamLogs?: boolean;
}

/** Folder of runs on the far side by default, relative to its home. */
const REMOTE_RUNS = '.wheelhouse/runs';
/** Largest piece of log fetched by one look. */
export const LOOK_BYTES = 1024 * 1024;

/**
 * What SSH and Slurm runs share: the run lives elsewhere, in a folder under
 * `remoteRunsDir`; this machine keeps a copy of its log (pushed as it grows
 * by the connection's one log stream and checked by looks: a
 * RemoteFollower), read by job pages like a local log, and the last state
 * each run was seen in, which `state` and `isAlive` answer from
 * without a round trip (a run not seen yet counts as running: its follower
 * finds out, and nothing is ever started beside a run that might be alive).
 * A kind says how to start, look at, signal and end a run.
 */
export abstract class MirroredEnvironment implements DetachedEnvironment {
  abstract readonly kind: 'ssh' | 'slurm';
  readonly unsupported = null;
  private readonly states = new Map<string, DetachedRunState>();
  private logStream: RemoteLogStream | null = null;

  protected constructor(
    protected readonly base: MirroredEnvironmentOptions,
    private readonly defaultPollMs: number,
  ) {}

  abstract startDetached(place: DetachedRunPlace, spec: DetachedRunSpec): Promise<DetachedRunHandle>;
  abstract signal(handle: DetachedRunHandle, signal: NodeJS.Signals): void;
  abstract terminate(handle: DetachedRunHandle, graceMs: number): Promise<void>;
  /** The run's state (learned before its log is read, so "ended" means the bytes read are all there is), then its log from `offset`. */
  protected abstract look(handle: DetachedRunHandle, offset: number): Promise<RemoteLook>;

  /** The run's log there and the file whose appearance means it has ended (null: only a look can tell). */
  protected streamTarget(handle: DetachedRunHandle): { logPath: string; endMarker: string | null } {
    return { logPath: `${handle.runDir}/output.log`, endMarker: `${handle.runDir}/exit` };
  }

  prepare(runId: string): DetachedRunPlace {
    checkRunId(runId);
    const dir = path.join(this.base.mirrorDir, runId);
    let logPath: string;
    try {
      ensurePrivateDir(this.base.mirrorDir);
      // What a crash left of a copy is replaced: the run's log on the far side is the truth.
      fs.rmSync(dir, { recursive: true, force: true });
      ensurePrivateDir(dir);
      logPath = path.join(dir, 'output.log');
      fs.closeSync(fs.openSync(logPath, 'wx', 0o600));
    } catch (error) {
      throw new ExecError('log-failed', `cannot make the run folder ${dir}: ${(error as Error).message}`);
    }
    return { environment: this.kind, environmentId: this.base.environmentId, runId, runDir: `${this.base.remoteRunsDir ?? REMOTE_RUNS}/${runId}`, logPath };
  }

  /** Unknown without a round trip: `startDetached` finds a run that had started instead (never a second one). */
  find(): DetachedRunHandle | null {
    return null;
  }

  state(handle: DetachedRunHandle): DetachedRunState {
    return this.states.get(handle.runId) ?? { state: 'running' };
  }

  isAlive(handle: DetachedRunHandle): boolean {
    return this.state(handle).state === 'running';
  }

  attach(handle: DetachedRunHandle, fromOffset: number, listener: (event: DetachedRunEvent) => void): DetachedAttachment {
    if (this.base.streamLogs !== false) this.logStream ??= new RemoteLogStream(this.base.shell);
    return new RemoteFollower({
      mirrorPath: handle.logPath,
      fromOffset,
      look: (offset) => this.look(handle, offset),
      stream: this.logStream ? { channel: this.logStream, ...this.streamTarget(handle) } : null,
      pollMs: this.base.pollMs ?? this.defaultPollMs,
      statePollMs: this.base.statePollMs ?? 1000,
      listener,
      onState: (state) => this.states.set(handle.runId, state),
    });
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
    this.states.delete(place.runId);
    fs.rmSync(path.dirname(place.logPath), { recursive: true, force: true });
    void this.base.shell.exec(`rm -rf -- ${remoteDirWord(place.runDir, shellQuote)}`).catch(() => undefined);
  }

  /** Wheelhouse's sandbox is bubblewrap on this machine: a remote run asked to be confined is refused, never run unconfined. */
  protected refuseSandbox(spec: DetachedRunSpec): void {
    if (spec.sandbox && spec.sandbox.mode !== 'danger-full-access') throw new ExecError('sandbox-unavailable', REMOTE_SANDBOX_REFUSAL);
  }
}
