import type { TerminalProgress } from '../terminal-progress.js';
import type { SandboxPolicy } from '../types.js';

/**
 * Runs that outlive the app: started detached from Wheelhouse, identified by
 * what can be found again after a crash, their output in a log file first.
 * This machine (local-detached.ts), a host over SSH (remote/ssh-detached.ts:
 * a remote pid and start time) and a Slurm cluster (remote/slurm-detached.ts:
 * a job id) implement the same interface, so the job engine never knows
 * where a run lives.
 */

/** What to run, like a `SpawnSpec` but always in a terminal and never tied to the app's life. */
export interface DetachedRunSpec {
  /** A string runs through the user's shell (`$SHELL -c`, in the login environment); an array is argv. */
  readonly command: string | readonly string[];
  /** Absolute working folder; must exist. */
  readonly cwd: string;
  /** Overlay on the login environment; `null` removes a variable. */
  readonly env?: Readonly<Record<string, string | null>>;
  readonly sandbox?: SandboxPolicy;
  readonly cols?: number;
  readonly rows?: number;
  /** Bytes kept in the log (default 64 MiB); past it the run goes on, its output is dropped after a marker. */
  readonly logCapBytes?: number;
  /**
   * A job array: these task indices run the command, each seeing its index (Slurm's
   * `SLURM_ARRAY_TASK_ID`); their lines in the one log begin `[task <index>] `. Slurm only.
   */
  readonly arrayIndices?: readonly number[];
}

/** One task of a job array, as the scheduler last said. */
export interface DetachedTask {
  readonly index: number;
  readonly state: 'waiting' | 'running' | 'completed' | 'failed' | 'cancelled' | 'lost';
  readonly exitCode: number | null;
  /** How it ended in words (a time limit), or what it waits for. */
  readonly detail: string | null;
}

/**
 * Where a run lives, known before it starts, so the intent can be made
 * durable first: a crash between "about to start" and "started" finds it
 * again (`find`) instead of starting a second one.
 */
export interface DetachedRunPlace {
  readonly environment: DetachedEnvironmentKind;
  /** The environment (Machines) the run lives in; absent means this machine. */
  readonly environmentId?: string;
  /** Names the run (unique per job and run number); its folder is derived from it. */
  readonly runId: string;
  /** The run's folder: its scripts, log, pid and status files (on the remote host for ssh and slurm). */
  readonly runDir: string;
  /** The output log: everything the terminal showed, in order (for ssh and slurm, this machine's copy of the remote log, fetched as it grows). */
  readonly logPath: string;
}

/**
 * A started run's identity, persisted before the run is announced: the
 * wrapper's pid *and* its start time, so a pid reused by another process
 * after a reboot or a long downtime is never taken for the run.
 */
export interface DetachedRunHandle extends DetachedRunPlace {
  /** The wrapper's pid (local, ssh) or the Slurm job id (slurm). */
  readonly pid: number;
  /** Linux: /proc/<pid>/stat starttime (clock ticks since boot); elsewhere `ps -o lstart`; `slurm` for a Slurm job. */
  readonly startTime: string;
  /** A Slurm job array's task indices (the job id is `pid`). */
  readonly arrayIndices?: readonly number[];
}

/** How a run ended, as its wrapper recorded it. */
export interface DetachedExit {
  /** The status the shell saw (128 + n when signal n ended the command); null when none was recorded. */
  readonly exitCode: number | null;
  /** The signal that ended the command (from a 128 + n status), else null. */
  readonly signal: string | null;
  /** How it ended in words, where the environment knows better than a status (a Slurm time limit, out of memory). */
  readonly detail?: string;
  /** A job array's tasks as they ended (the run's exit summarises them). */
  readonly tasks?: readonly DetachedTask[];
}

/** What a run is now. */
export type DetachedRunState =
  /** The wrapper is alive (pid and start time match); `detail` says what it waits for when it has not begun (a Slurm job pending). */
  | { readonly state: 'running'; readonly detail?: string; readonly tasks?: readonly DetachedTask[] }
  /** It ended and recorded how; its log is complete. */
  | { readonly state: 'ended'; readonly exit: DetachedExit }
  /** Its wrapper is gone without recording an end (killed, or the machine restarted). */
  | { readonly state: 'lost' };

/** What an attachment reports, in order; `end` is last. */
export type DetachedRunEvent =
  /** Log bytes from `offset`; a chunk never splits a UTF-8 character, so offsets of decoded text are exact. */
  | { readonly type: 'output'; readonly offset: number; readonly data: Buffer }
  | { readonly type: 'progress'; readonly progress: TerminalProgress }
  /** Why the run has not begun (a Slurm job pending: "waiting for the cluster (Resources)"); null once it has. */
  | { readonly type: 'waiting'; readonly detail: string | null }
  /** A job array's tasks changed (a task began, ended, or waits for something new). */
  | { readonly type: 'tasks'; readonly tasks: readonly DetachedTask[] }
  | { readonly type: 'end'; readonly end: Exclude<DetachedRunState, { state: 'running' }> };

/** A live follow of a run's log and end. */
export interface DetachedAttachment {
  /** Log bytes delivered so far (the next output's offset). */
  readonly offset: number;
  /** Delivers what the log holds now, and the end if the run is over (before a change that must follow them). */
  poll(): void;
  /** Stops following; the run goes on. */
  dispose(): void;
}

export type DetachedEnvironmentKind = 'local' | 'ssh' | 'slurm';

/**
 * One place runs can live. Remote environments answer `find`, `isAlive`
 * and `state` from what they last learned (a run not looked at yet counts as
 * running; its follower learns the truth), and make `startDetached`
 * idempotent instead: it finds a run that already started at its place
 * rather than starting a second one.
 */
export interface DetachedEnvironment {
  readonly kind: DetachedEnvironmentKind;
  /** Whether runs can be detached here at all (null), or why not in plain words. */
  readonly unsupported: string | null;
  /** Makes the run's folder and empty log; nothing runs yet. `environmentId` picks where, for an environment that routes (environment-router.ts). */
  prepare(runId: string, environmentId?: string): DetachedRunPlace;
  /** Starts the run in its own session, owned by a small wrapper that keeps its terminal and records how it ended. */
  startDetached(place: DetachedRunPlace, spec: DetachedRunSpec): Promise<DetachedRunHandle>;
  /** After a crash before the handle was made durable: the run started at `place`, or null if it never did. */
  find(place: DetachedRunPlace): DetachedRunHandle | null;
  /** By pid and start time. */
  isAlive(handle: DetachedRunHandle): boolean;
  state(handle: DetachedRunHandle): DetachedRunState;
  /** Follows the log from `fromOffset` (bytes already delivered before a restart are not repeated), then reports the end. */
  attach(handle: DetachedRunHandle, fromOffset: number, listener: (event: DetachedRunEvent) => void): DetachedAttachment;
  /** Sends `signal` to the command's whole tree (its session, group and descendants). */
  signal(handle: DetachedRunHandle, signal: NodeJS.Signals): void;
  /** SIGTERM (and SIGCONT) to the tree, SIGKILL after `graceMs`; resolves once the run has ended or is gone. */
  terminate(handle: DetachedRunHandle, graceMs: number): Promise<void>;
  /** `length` bytes of the log from `offset` (fewer at its end). */
  readLog(place: DetachedRunPlace, offset: number, length: number): Buffer;
  /** Bytes in the log now. */
  logSize(place: DetachedRunPlace): number;
  /** Appends a line of Wheelhouse's own to the log of a run that has ended (a marker). */
  appendNote(place: DetachedRunPlace, text: string): void;
  /** Deletes an ended run's folder (its log with it). */
  remove(place: DetachedRunPlace): void;
}
