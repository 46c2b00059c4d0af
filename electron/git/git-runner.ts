import fs from 'node:fs';
import type { ProcessSupervisor } from '../exec/index.js';

/** Output a git command may print before the rest is dropped (diffs of large changes). */
const GIT_OUTPUT_CAP_BYTES = 64 * 1024 * 1024;
/** How much of stderr a failure quotes. */
const STDERR_QUOTE_CHARS = 600;

export interface GitCall {
  /** The folder git runs in (a work tree, or any folder when `gitDir` is given). */
  readonly cwd: string;
  /** Variables for this call only (GIT_INDEX_FILE, GIT_DIR, GIT_WORK_TREE…). */
  readonly env?: Readonly<Record<string, string>>;
  /** Written to git's stdin, then closed. */
  readonly input?: string | Buffer;
  /** Exit codes that are answers rather than failures (e.g. 1 of `diff --quiet`). */
  readonly okExitCodes?: readonly number[];
}

export interface GitOutput {
  readonly exitCode: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** A git command that failed: what git said, for the person and for the caller's decision. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ''} failed${exitCode === null ? '' : ` (exit ${exitCode})`}${stderr ? `: ${stderr}` : ''}`);
    this.name = 'GitError';
  }
}

/**
 * Runs git through the process supervisor (plain pipes, never a terminal, never a prompt).
 * Output is plumbing the caller parses: the log file the supervisor writes for every process
 * is removed once read, so file contents from diffs do not pile up in the home.
 */
export class GitRunner {
  constructor(private readonly supervisor: ProcessSupervisor) {}

  async run(args: readonly string[], call: GitCall): Promise<GitOutput> {
    const child = await this.supervisor.spawn({
      command: ['git', ...args],
      cwd: call.cwd,
      tty: false,
      // No pager, no credential prompt, stable English messages, no optional locks on the person's index.
      env: { GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0', ...call.env },
      outputCapBytes: GIT_OUTPUT_CAP_BYTES,
      logCapBytes: 0,
      label: `git ${args[0] ?? ''}`,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const subscription = child.subscribe((event) => {
      if (event.type === 'output') (event.stream === 'stderr' ? stderr : stdout).push(event.data);
    });
    try {
      if (call.input !== undefined) child.write(call.input);
      child.endInput();
    } catch {
      // git exited before reading its input; its exit status says why.
    }
    const exit = await child.exited;
    subscription.dispose();
    fs.rm(child.logPath, { force: true }, () => {});
    const errorText = Buffer.concat(stderr).toString('utf8').trim();
    const exitCode = exit.exitCode;
    if (exitCode === null || (exitCode !== 0 && !(call.okExitCodes ?? []).includes(exitCode))) {
      throw new GitError(args, exitCode, errorText.length > STDERR_QUOTE_CHARS ? `${errorText.slice(0, STDERR_QUOTE_CHARS)}…` : errorText);
    }
    return { exitCode, stdout: Buffer.concat(stdout), stderr: errorText };
  }

  /** stdout as text, without the trailing newline. */
  async text(args: readonly string[], call: GitCall): Promise<string> {
    return (await this.run(args, call)).stdout.toString('utf8').replace(/\n$/, '');
  }
}
