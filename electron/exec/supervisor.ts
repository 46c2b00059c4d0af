import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createBackend, type ProcessBackend } from './backends.js';
import { childEnvironment } from './child-environment.js';
import { ExecError } from './exec-error.js';
import { loginEnvironment as cachedLoginEnvironment, shellArgv, type LoginEnvironment } from './login-environment.js';
import { OutputLog } from './output-log.js';
import { OutputPipeline, type OutputLimits } from './output-pipeline.js';
import { detectSandbox, REMOTE_SANDBOX_REFUSAL, sandboxedArgv } from './sandbox.js';
import { SupervisedProcess } from './supervised-process.js';
import type { DetachedEnvironment } from './detached/detached-run.js';
import { LocalDetachedEnvironment } from './detached/local-detached.js';
import type { SandboxStatus, SpawnSpec } from './types.js';

export interface SupervisorOptions {
  /** Where each process's log (`<id>.log`, mode 0600) is written. */
  readonly logDir: string;
  /** Where detached runs keep their folders (default: `runs` beside `logDir`). */
  readonly runsDir?: string;
  /** How often a followed detached run is checked when no file event arrives (default 500 ms). */
  readonly detachedPollMs?: number;
  /** Default: the user's login-shell environment, resolved once per app run. */
  readonly loginEnvironment?: () => Promise<LoginEnvironment>;
  /** SIGTERM → SIGKILL grace for terminate and timeouts (default 2000 ms). */
  readonly killGraceMs?: number;
  readonly output?: Partial<OutputLimits>;
  /**
   * Names of the variables that hold secrets (every provider's `env_key`), read at each spawn
   * so a config change applies to the next process. They are removed from every child's
   * environment unless its spec inherits or sets them explicitly.
   */
  readonly secretVariables?: () => Iterable<string>;
  /** Kept read-only inside the sandbox even where a writable root covers them (the Wheelhouse home). */
  readonly protectedPaths?: readonly string[];
}

/** How the supervisor would start a spec: what runs (sandbox included) and its environment. */
export interface LaunchPlan {
  /** The command itself (what listings show). */
  readonly argv: readonly string[];
  /** What is executed: `argv`, wrapped in bubblewrap when sandboxed. */
  readonly launch: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly sandboxed: boolean;
}

export const DEFAULT_OUTPUT_LIMITS: OutputLimits = {
  maxDelayMs: 16,
  // Codex coalesces a command's reads into deltas of up to 64 KiB too: a flood costs half the
  // events (JSON, carrier writes, event-log rows, client parses) of 32 KB batches.
  maxBatchBytes: 64 * 1024,
  // The window a flood keeps moving through while its client waits for a core: at 20-25 MB/s, 2 MB
  // is ~100 ms. With 352 KB (and acks held above 64 KB unsent) a `command/exec` flood over stdio
  // paused 14-35 times and ran at 0.61 of a raw pty drain; with 2 MB (and 512 KB) at 0.76
  // (docs/performance.md, "The flow-control window"). A consumer holds at most this plus one batch
  // and one read when the pause takes effect.
  highWaterBytes: 2 * 1024 * 1024,
  lowWaterBytes: 1024 * 1024,
  capBytes: 64 * 1024 * 1024,
  logCapBytes: 64 * 1024 * 1024,
  modelHeadBytes: 8 * 1024,
  modelTailBytes: 8 * 1024,
};

function resolveExecutable(name: string, cwd: string, pathVariable: string | undefined): string {
  const candidates = name.includes('/')
    ? [path.resolve(cwd, name)]
    : (pathVariable ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, name));
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Try the next one.
    }
  }
  throw new ExecError('not-found', `command not found: ${name} (searched ${name.includes('/') ? cwd : 'PATH'})`);
}

function validate(spec: SpawnSpec): void {
  validateShape(spec);
  let isDir = false;
  try {
    isDir = fs.statSync(spec.cwd).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDir) throw new ExecError('bad-cwd', `the working folder does not exist or is not a folder: ${spec.cwd}`);
}

/** What a spec must be wherever it runs (its folder is checked where it runs). */
function validateShape(spec: SpawnSpec): void {
  const argv = typeof spec.command === 'string' ? [spec.command] : spec.command;
  if (argv.length === 0 || argv[0]!.trim() === '') throw new ExecError('invalid-spec', 'the command is empty');
  if (argv.some((arg) => typeof arg !== 'string' || arg.includes('\0'))) throw new ExecError('invalid-spec', 'command arguments must be strings without NUL');
  if (!path.posix.isAbsolute(spec.cwd)) throw new ExecError('bad-cwd', `the working folder must be an absolute path, got ${spec.cwd}`);
  for (const [name, value] of [['cols', spec.cols], ['rows', spec.rows]] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1 || value > 2000)) {
      throw new ExecError('invalid-spec', `${name} must be a whole number from 1 to 2000, got ${value}`);
    }
  }
  if (spec.timeoutMs !== undefined && !(spec.timeoutMs > 0 && Number.isFinite(spec.timeoutMs))) {
    throw new ExecError('invalid-spec', `timeoutMs must be a positive number, got ${spec.timeoutMs}`);
  }
  for (const [name, value] of [['outputCapBytes', spec.outputCapBytes], ['logCapBytes', spec.logCapBytes]] as const) {
    if (value !== undefined && !(typeof value === 'number' && value >= 0 && (Number.isInteger(value) || value === Number.POSITIVE_INFINITY))) {
      throw new ExecError('invalid-spec', `${name} must be a whole number of bytes or Infinity, got ${value}`);
    }
  }
  for (const name of spec.inheritSecrets ?? []) {
    if (typeof name !== 'string' || name === '' || name.includes('=') || name.includes('\0')) {
      throw new ExecError('invalid-spec', `invalid secret variable name ${JSON.stringify(name)}`);
    }
  }
  for (const [key, value] of Object.entries(spec.env ?? {})) {
    if (key === '' || key.includes('=') || key.includes('\0') || (value !== null && (typeof value !== 'string' || value.includes('\0')))) {
      throw new ExecError('invalid-spec', `invalid environment variable ${JSON.stringify(key)}`);
    }
  }
}

/**
 * The one owner of child processes (agent commands, the person's terminal,
 * command jobs, MCP stdio servers, hooks). Nothing else in the app spawns.
 */
export class ProcessSupervisor {
  private readonly processes = new Map<string, SupervisedProcess>();
  private readonly limits: OutputLimits;
  private readonly killGraceMs: number;
  private readonly environment: () => Promise<LoginEnvironment>;
  private sandbox: Promise<SandboxStatus> | undefined;
  private disposed = false;
  /**
   * Runs that outlive the app (command jobs): not children of ours, never
   * ended by `dispose`; started with the same environment and sandbox rules.
   */
  readonly detached: DetachedEnvironment;

  constructor(private readonly options: SupervisorOptions) {
    this.limits = { ...DEFAULT_OUTPUT_LIMITS, ...options.output };
    this.killGraceMs = options.killGraceMs ?? 2000;
    this.environment = options.loginEnvironment ?? cachedLoginEnvironment;
    this.detached = new LocalDetachedEnvironment({
      runsDir: options.runsDir ?? path.join(path.dirname(options.logDir), 'runs'),
      prepareLaunch: (spec) => this.plan(spec),
      logCapBytes: this.limits.logCapBytes,
      ...(options.detachedPollMs !== undefined ? { pollMs: options.detachedPollMs } : {}),
    });
  }

  /** The environment commands start from (PATH etc. of the user's login shell). */
  loginEnvironment(): Promise<LoginEnvironment> {
    return this.environment();
  }

  /** Whether sandboxed modes can run here; checked once (bwrap present and able to start). */
  sandboxStatus(): Promise<SandboxStatus> {
    this.sandbox ??= this.environment().then((login) => detectSandbox(login.env.PATH));
    return this.sandbox;
  }

  /**
   * Validates a spec and works out how it would start (login environment minus secrets, the
   * sandbox's argv) without starting it: for a launcher that starts processes another way
   * (detached runs), so the same rules apply.
   */
  async plan(spec: SpawnSpec): Promise<LaunchPlan> {
    if (this.disposed) throw new ExecError('disposed', 'the process supervisor has shut down');
    validate(spec);
    const policy = spec.sandbox ?? { mode: 'danger-full-access' };
    const login = await this.environment();
    const env = childEnvironment(login.env, spec.env, this.options.secretVariables?.() ?? [], spec.inheritSecrets);
    if (spec.tty ?? true) env.TERM ??= 'xterm-256color';
    const argv =
      typeof spec.command === 'string'
        ? shellArgv(login.shell, spec.command)
        : [resolveExecutable(spec.command[0]!, spec.cwd, env.PATH), ...spec.command.slice(1)];
    if (policy.mode === 'danger-full-access') return { argv, launch: argv, env, sandboxed: false };
    const status = await this.sandboxStatus();
    if (!status.available) throw new ExecError('sandbox-unavailable', `cannot run in ${policy.mode} mode: ${status.reason}`);
    const launch = sandboxedArgv(status.executable, policy, argv, {
      cwd: spec.cwd,
      env,
      isolation: status.isolation,
      protectedPaths: this.options.protectedPaths ?? [],
    });
    return { argv, launch, env, sandboxed: true };
  }

  async spawn(spec: SpawnSpec): Promise<SupervisedProcess> {
    const { argv, launch, env, sandboxed } = await this.plan(spec);
    const tty = spec.tty ?? true;
    return this.supervise(spec, { argv, sandboxed }, () => createBackend({ argv: launch, cwd: spec.cwd, env, cols: spec.cols ?? 80, rows: spec.rows ?? 24 }, tty));
  }

  /**
   * A process another part of electron/exec starts elsewhere (a command on an
   * SSH host, remote/ssh-processes.ts), supervised like a local one: the same
   * output pipeline, log, flow control, timeout and listing. Its folder is
   * checked there; no sandbox applies there, so a spec asking for one is refused.
   */
  async spawnElsewhere(spec: SpawnSpec, argv: readonly string[], start: () => Promise<ProcessBackend>): Promise<SupervisedProcess> {
    if (this.disposed) throw new ExecError('disposed', 'the process supervisor has shut down');
    validateShape(spec);
    if ((spec.sandbox?.mode ?? 'danger-full-access') !== 'danger-full-access') {
      throw new ExecError('sandbox-unavailable', `cannot run in ${spec.sandbox!.mode} mode there: ${REMOTE_SANDBOX_REFUSAL}`);
    }
    return this.supervise(spec, { argv, sandboxed: false }, start);
  }

  private async supervise(spec: SpawnSpec, what: { argv: readonly string[]; sandboxed: boolean }, start: () => Promise<ProcessBackend>): Promise<SupervisedProcess> {
    const { argv, sandboxed } = what;
    const tty = spec.tty ?? true;
    if (this.disposed) throw new ExecError('disposed', 'the process supervisor has shut down');
    const id = `proc-${randomUUID()}`;
    const limits: OutputLimits = {
      ...this.limits,
      capBytes: spec.outputCapBytes ?? this.limits.capBytes,
      logCapBytes: spec.logCapBytes ?? this.limits.logCapBytes,
    };
    const log = OutputLog.create(this.options.logDir, id, limits.logCapBytes);
    let backend;
    try {
      backend = await start();
    } catch (error) {
      log.close();
      throw error;
    }
    const output = new OutputPipeline(limits, log, (paused) => backend.setOutputPaused(paused));
    const child = new SupervisedProcess(
      {
        id,
        label: spec.label ?? null,
        argv,
        cwd: spec.cwd,
        tty,
        sandboxed,
        logPath: log.path,
        timeoutMs: spec.timeoutMs ?? null,
        killGraceMs: this.killGraceMs,
        killTreeOnExit: spec.killTreeOnExit ?? true,
      },
      backend,
      output,
    );
    this.processes.set(id, child);
    void child.exited.then(() => this.processes.delete(id));
    return child;
  }
  get(id: string): SupervisedProcess | undefined {
    return this.processes.get(id);
  }

  /** Processes that have not exited yet. */
  list(): SupervisedProcess[] {
    return [...this.processes.values()];
  }

  /** App quit: refuses new spawns and terminates every tree (SIGTERM, SIGKILL after `graceMs`). */
  async dispose(graceMs = Math.min(this.killGraceMs, 1000)): Promise<void> {
    this.disposed = true;
    await Promise.all(this.list().map((child) => child.terminate({ graceMs, reason: 'disposed' })));
  }

  /** For a host exiting right now (process 'exit' handler): SIGKILL every tree, synchronously. */
  disposeNow(): void {
    this.disposed = true;
    for (const child of this.list()) child.killNow();
  }
}
