import type { DetachedRunSpec } from '../detached/detached-run.js';

/**
 * What a remote run executes: the person's login shell there with the
 * command (as locally, through their shell), the job's environment overlay
 * applied by `env` (`null` unsets a variable).
 */
export function remoteArgv(spec: DetachedRunSpec): string[] {
  const overlay: string[] = [];
  for (const [name, value] of Object.entries(spec.env ?? {})) {
    if (value === null) overlay.push('-u', name);
    else overlay.push(`${name}=${value}`);
  }
  const command = typeof spec.command === 'string' ? ['/bin/sh', '-c', 'exec "${SHELL:-/bin/sh}" -lc "$1"', 'sh', spec.command] : [...spec.command];
  return overlay.length > 0 ? ['env', ...overlay, ...command] : command;
}

/** A remote folder as a shell word: absolute, or under the remote home. */
export function remoteDirWord(dir: string, quote: (value: string) => string): string {
  return dir.startsWith('/') ? quote(dir) : `"$HOME"/${quote(dir)}`;
}

/** Wheelhouse's sandbox is bubblewrap on this machine; elsewhere it would be a promise nothing keeps. */
export const REMOTE_SANDBOX_REFUSAL =
  "Wheelhouse's sandbox applies on this machine only; elsewhere a command has the rights of the account it runs as. Run it unconfined there, or run it here";
