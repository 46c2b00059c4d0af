import { spawn } from 'node:child_process';
import { ExecError } from '../exec-error.js';

/**
 * Somewhere POSIX shell commands run and answer: a host over SSH
 * (ssh-connection.ts) or this machine (for a Slurm cluster whose node this
 * is). Remote environments speak only through this, so the same code drives
 * a cluster over SSH and locally.
 */
export interface ShellResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly code: number | null;
  readonly signal: string | null;
}

/** A command that stays: bytes in on its stdin, out on its stdout, as long as it runs. */
export interface ShellStream {
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  /** What it said on stderr, once it has ended. */
  readonly ended: Promise<string>;
  /** Ends it (a command reading its stdin sees the end). */
  close(): void;
}

export interface RemoteShell {
  /** Runs `command` with `/bin/sh -c` (or the login shell over SSH), `input` on its stdin. */
  exec(command: string, input?: string | Buffer): Promise<ShellResult>;
  /** Starts `command` on a channel of its own that lasts until it ends or is closed. */
  stream(command: string): Promise<ShellStream>;
}

/** Throws the command's own words when it failed. */
export function expectSuccess(result: ShellResult, what: string): ShellResult {
  if (result.code === 0) return result;
  const said = result.stderr.trim() || result.stdout.toString('utf8').trim();
  throw new ExecError('spawn-failed', `${what} failed${said ? `: ${said.split('\n').slice(-3).join(' ')}` : ` (exit ${result.code ?? result.signal})`}`);
}

/** This machine's `/bin/sh`, with the environment overlay given (e.g. SLURM_CONF). */
export class LocalShell implements RemoteShell {
  constructor(private readonly env: Readonly<Record<string, string>> = {}) {}

  exec(command: string, input?: string | Buffer): Promise<ShellResult> {
    return new Promise((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', command], { env: { ...process.env, ...this.env }, stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.once('error', (error) => reject(new ExecError('spawn-failed', `cannot run /bin/sh: ${error.message}`)));
      child.once('close', (code, signal) => resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), code, signal }));
      child.stdin.on('error', () => undefined);
      child.stdin.end(input ?? '');
    });
  }

  stream(command: string): Promise<ShellStream> {
    const child = spawn('/bin/sh', ['-c', command], { env: { ...process.env, ...this.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const err: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.stdin.on('error', () => undefined);
    const ended = new Promise<string>((resolve) => {
      child.once('error', (error) => resolve(`cannot run /bin/sh: ${error.message}`));
      child.once('close', () => resolve(Buffer.concat(err).toString('utf8')));
    });
    return Promise.resolve({
      stdin: child.stdin,
      stdout: child.stdout,
      ended,
      close: () => {
        child.stdin.end();
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      },
    });
  }
}
