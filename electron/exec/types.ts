import type { SupervisedProcess } from './supervised-process.js';
import type { TerminalProgress } from './terminal-progress.js';

/**
 * Where a thread's commands and terminals start on another machine (an SSH
 * host: remote/ssh-processes.ts), supervised here like local processes.
 */
export interface RemoteProcessHost {
  readonly environmentId: string;
  /** Starts `spec` there; its `cwd` is a folder there. */
  spawn(spec: SpawnSpec): Promise<SupervisedProcess>;
}

/**
 * Sandbox modes (Codex's `SandboxMode` names). Enforced on Linux with
 * bubblewrap; elsewhere only `danger-full-access` can run.
 */
export type SandboxPolicy =
  | { readonly mode: 'danger-full-access' }
  | { readonly mode: 'read-only'; readonly networkAccess?: boolean }
  | {
      readonly mode: 'workspace-write';
      /** Folders the command may write (besides /tmp and $TMPDIR); default: its cwd. */
      readonly writableRoots?: readonly string[];
      readonly networkAccess?: boolean;
    };

/** How strongly bubblewrap can isolate on this machine (what its probe found to work). */
export interface SandboxIsolation {
  /** A user namespace of its own (`--unshare-user`); false where the kernel refuses one. Capabilities are dropped either way. */
  readonly userNamespace: boolean;
  /** A fresh /proc of its own pid namespace; false where the kernel refuses to mount one (the host's shows, read-only). */
  readonly ownProc: boolean;
}

export type SandboxStatus =
  | {
      readonly available: true;
      readonly kind: 'bubblewrap';
      readonly executable: string;
      readonly isolation: SandboxIsolation;
      /** What is weaker than usual here, in words for the UI; null when nothing is. */
      readonly note: string | null;
    }
  | { readonly available: false; readonly reason: string };

/** What to run. A string runs through the user's shell (`$SHELL -c`, in the cached login environment); an array is argv. */
export interface SpawnSpec {
  readonly command: string | readonly string[];
  /** Absolute working folder; must exist. */
  readonly cwd: string;
  /** Overlay on the login environment; `null` removes a variable. A secret variable set here is the caller's explicit choice and is kept. */
  readonly env?: Readonly<Record<string, string | null>>;
  /**
   * Secret variables (provider keys, see `SupervisorOptions.secretVariables`) this process may
   * inherit from the login environment: only what the person listed for it (an MCP server's
   * `env_vars`). Every other secret variable is removed.
   */
  readonly inheritSecrets?: readonly string[];
  /** A pseudo-terminal (default) or plain pipes (stdout and stderr kept apart). */
  readonly tty?: boolean;
  readonly cols?: number;
  readonly rows?: number;
  /** Running time after which the whole tree is terminated (paused time does not count). */
  readonly timeoutMs?: number;
  readonly sandbox?: SandboxPolicy;
  /**
   * Bytes streamed to subscribers before the rest is dropped (default 64 MiB;
   * Infinity for the person's terminal or a long-lived server).
   */
  readonly outputCapBytes?: number;
  /** Bytes kept in the log file (default 64 MiB); streaming goes on past it. */
  readonly logCapBytes?: number;
  /** Kill what the command left running in its session when it exits (default true). */
  readonly killTreeOnExit?: boolean;
  /** For listings and diagnostics only. */
  readonly label?: string;
}

export type OutputStream = 'pty' | 'stdout' | 'stderr';

/** Why a process ended. */
/** `connection-lost`: a command on another machine whose connection dropped (what became of it there is unknown). */
export type ExitReason = 'exited' | 'terminated' | 'timed-out' | 'disposed' | 'connection-lost';

export interface ExitInfo {
  /** Set when the process exited by itself; null when a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly reason: ExitReason;
  /** Wall-clock time from spawn to exit. */
  readonly durationMs: number;
  /** Time spent not paused (SIGSTOP) by the supervisor. */
  readonly activeMs: number;
  /** Every byte the process wrote, including what was over the cap. */
  readonly outputBytes: number;
  /** Bytes over the output cap: neither streamed nor logged. */
  readonly droppedBytes: number;
  /** Why it ended, in words for a person, when the reason alone does not say (a lost connection). */
  readonly detail?: string;
}

export type ProcessState = 'running' | 'paused' | 'exited';

/** What a subscriber receives, in order; `exit` is always last. */
export type ProcessEvent =
  | {
      readonly type: 'output';
      readonly stream: OutputStream;
      readonly offset: number;
      readonly data: Buffer;
      /**
       * Where these bytes sit in the process's log file, when all of them were
       * written there before this event (null past the log's cap): a consumer
       * may keep this reference instead of a copy of the bytes.
       */
      readonly logOffset: number | null;
    }
  | { readonly type: 'progress'; readonly progress: TerminalProgress }
  | { readonly type: 'output-capped'; readonly capBytes: number }
  | { readonly type: 'state'; readonly state: 'running' | 'paused' }
  | { readonly type: 'exit'; readonly exit: ExitInfo };

export interface SubscribeOptions {
  /**
   * When true the subscriber must call `ack(bytes)` for the output it has
   * consumed; while it lags by more than the high-water mark the process's
   * output is paused (the command blocks), so nothing is ever dropped.
   */
  readonly flowControl?: boolean;
}

export interface Subscription {
  /** Acknowledges `bytes` more bytes of output as consumed. */
  ack(bytes: number): void;
  dispose(): void;
}
