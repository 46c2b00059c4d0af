import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxPolicy, SandboxStatus } from './types.js';

/**
 * Linux sandboxing with bubblewrap. The whole filesystem is bound read-only;
 * `workspace-write` re-binds its writable roots, /tmp and $TMPDIR writable
 * (a `.git` folder inside a root stays read-only: a planted git hook would
 * run outside the sandbox later). The network namespace is private (only a
 * downed loopback) unless network access is allowed. The command gets its
 * own pid namespace and session and dies with the supervisor.
 */

/** Flags every sandboxed run uses, also used by the availability probe. */
const BASE_FLAGS = ['--die-with-parent', '--new-session', '--unshare-pid', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];

function findOnPath(name: string, pathVariable: string | undefined): string | undefined {
  for (const dir of (pathVariable ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

function probe(executable: string, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(executable, [...BASE_FLAGS, '--unshare-net', '--', 'true'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve(`could not run ${executable}: ${error.message}`);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(null);
      else resolve(`${executable} cannot create a sandbox here (${signal ?? `exit ${code}`}): ${stderr.trim() || 'no message'}`);
    });
  });
}

/** Whether commands can be sandboxed on this machine, and if not, why (in words for the UI). */
export async function detectSandbox(pathVariable: string | undefined, timeoutMs = 10_000): Promise<SandboxStatus> {
  if (process.platform !== 'linux') {
    return { available: false, reason: `no sandbox on ${process.platform}: only Linux (bubblewrap) is supported, commands run unsandboxed` };
  }
  const executable = findOnPath('bwrap', pathVariable) ?? findOnPath('bwrap', '/usr/bin:/usr/local/bin:/bin');
  if (!executable) return { available: false, reason: 'bubblewrap (bwrap) is not installed' };
  const failure = await probe(executable, timeoutMs);
  return failure ? { available: false, reason: failure } : { available: true, kind: 'bubblewrap', executable };
}

function existingDir(dir: string): string | undefined {
  try {
    return fs.statSync(dir).isDirectory() ? fs.realpathSync(dir) : undefined;
  } catch {
    return undefined;
  }
}

/** The argv that runs `argv` under `policy` (unchanged for danger-full-access). */
export function sandboxedArgv(
  executable: string,
  policy: SandboxPolicy,
  argv: readonly string[],
  context: { cwd: string; env: Readonly<Record<string, string>> },
): string[] {
  if (policy.mode === 'danger-full-access') return [...argv];
  const flags = [...BASE_FLAGS];
  if (policy.mode === 'workspace-write') {
    const roots = [...(policy.writableRoots ?? [context.cwd]), '/tmp', ...(context.env.TMPDIR ? [context.env.TMPDIR] : [])];
    const seen = new Set<string>();
    for (const root of roots) {
      const real = existingDir(root);
      if (!real || seen.has(real)) continue;
      seen.add(real);
      flags.push('--bind', real, real);
      const git = existingDir(path.join(real, '.git'));
      if (git) flags.push('--ro-bind', git, git);
    }
  }
  if (!policy.networkAccess) flags.push('--unshare-net');
  flags.push('--chdir', context.cwd, '--');
  return [executable, ...flags, ...argv];
}
