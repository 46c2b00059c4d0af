import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { signalTree } from './process-tree.js';

/**
 * The user's login-shell environment. An app started from a dock or a file
 * manager inherits a bare environment (no PATH entries from ~/.profile,
 * ~/.zshrc, nvm, Homebrew...), so "command not found" would hit installed
 * tools. The shell is asked once, as a login + interactive shell, to print
 * its environment; what it prints around our markers (banners, motd) is
 * ignored. If that fails or takes too long, the app's own environment is
 * used and `note` says why.
 */
export interface LoginEnvironment {
  readonly env: Readonly<Record<string, string>>;
  /** The shell that was asked (also the shell that runs string commands). */
  readonly shell: string;
  readonly source: 'login-shell' | 'process';
  /** Why the process environment was used instead; null when the shell answered. */
  readonly note: string | null;
}

export interface LoginEnvironmentOptions {
  /** Default: $SHELL, else /bin/bash, else /bin/sh. */
  readonly shell?: string;
  /** The environment the shell starts from (default: process.env). */
  readonly baseEnv?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

/** Shells known to accept `-l -i -c <script>` and run POSIX-ish `printf` and `env`. */
const KNOWN_SHELLS = new Set(['bash', 'zsh', 'sh', 'dash', 'ksh', 'mksh', 'fish']);
/** Set by each shell itself; copying them into commands would be wrong. */
const PER_SHELL_VARIABLES = ['_', 'SHLVL', 'PWD', 'OLDPWD', 'PS1', 'PS2'];
/** Electron's own switches must never reach a child (ELECTRON_RUN_AS_NODE turns editors into Node). */
const APP_ONLY_VARIABLES = ['ELECTRON_RUN_AS_NODE', 'ELECTRON_NO_ATTACH_CONSOLE'];

function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The shell string commands run in: the user's if usable, else bash, else sh. */
export function userShell(env: NodeJS.ProcessEnv | Readonly<Record<string, string>> = process.env): string {
  const candidate = env.SHELL;
  if (candidate && path.isAbsolute(candidate) && KNOWN_SHELLS.has(path.basename(candidate)) && isExecutableFile(candidate)) {
    return candidate;
  }
  return isExecutableFile('/bin/bash') ? '/bin/bash' : '/bin/sh';
}

/**
 * argv that runs a command string in the user's shell. Not a login shell: the
 * login environment was resolved once and is passed in, and re-running the
 * rc files for every command costs time (or hangs, when an rc file waits on a
 * lock such as pyenv's rehash).
 */
export function shellArgv(shell: string, command: string): string[] {
  return [shell, '-c', command];
}

/** argv of an interactive login shell, for the person's own terminal (the pty makes it interactive). */
export function terminalShellArgv(shell: string): string[] {
  return [shell, '-l'];
}

function cleaned(env: Record<string, string | undefined>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value;
  for (const key of APP_ONLY_VARIABLES) delete result[key];
  return result;
}

function fallback(shell: string, baseEnv: NodeJS.ProcessEnv, note: string): LoginEnvironment {
  return { env: cleaned({ ...baseEnv }), shell, source: 'process', note };
}

/** Asks the login shell for its environment (no cache; see `loginEnvironment`). */
export async function resolveLoginEnvironment(options: LoginEnvironmentOptions = {}): Promise<LoginEnvironment> {
  const baseEnv = options.baseEnv ?? process.env;
  const shell = options.shell ?? userShell(baseEnv);
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (process.platform === 'win32') return fallback(shell, baseEnv, 'Windows has no login shell; the app environment is used');
  const marker = `__WHEELHOUSE_ENV_${randomBytes(8).toString('hex')}__`;
  const script = `printf '%s' '${marker}'; env -0; printf '%s' '${marker}'`;
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      // Detached: the shell leads its own group, so a timeout kills what its rc files started too.
      child = spawn(shell, ['-l', '-i', '-c', script], {
        cwd: baseEnv.HOME && fs.existsSync(baseEnv.HOME) ? baseEnv.HOME : '/',
        env: baseEnv,
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch (error) {
      resolve(fallback(shell, baseEnv, `could not start ${shell}: ${(error as Error).message}`));
      return;
    }
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (result: LoginEnvironment) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.pid) signalTree(child.pid, 'SIGKILL');
      resolve(result);
    };
    const timer = setTimeout(
      () => finish(fallback(shell, baseEnv, `${shell} did not print its environment within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const parse = (final: boolean) => {
      const text = Buffer.concat(chunks).toString('utf8');
      const start = text.indexOf(marker);
      const end = text.lastIndexOf(marker);
      if (start < 0 || end <= start) {
        if (final) finish(fallback(shell, baseEnv, `${shell} -lic did not print its environment`));
        return;
      }
      const env: Record<string, string> = {};
      for (const entry of text.slice(start + marker.length, end).split('\0')) {
        const equals = entry.indexOf('=');
        if (equals > 0) env[entry.slice(0, equals)] = entry.slice(equals + 1);
      }
      for (const key of PER_SHELL_VARIABLES) delete env[key];
      if (!env.PATH) finish(fallback(shell, baseEnv, `${shell} printed an environment without PATH`));
      else finish({ env: cleaned(env), shell, source: 'login-shell', note: null });
    };
    // Parsed as soon as both markers arrived: something an rc file started may keep stdout open.
    child.stdout!.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      parse(false);
    });
    child.once('error', (error) => finish(fallback(shell, baseEnv, `could not start ${shell}: ${error.message}`)));
    child.stdout!.once('close', () => parse(true));
  });
}

let cached: Promise<LoginEnvironment> | undefined;

/** The login environment of the current user, resolved once per process. */
export function loginEnvironment(): Promise<LoginEnvironment> {
  cached ??= resolveLoginEnvironment();
  return cached;
}
