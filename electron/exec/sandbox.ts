import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { protectedSubpaths } from './protected-paths.js';
import type { SandboxIsolation, SandboxPolicy, SandboxStatus } from './types.js';

/**
 * Linux sandboxing with bubblewrap. The whole filesystem is bound read-only;
 * `workspace-write` re-binds its writable roots, /tmp and $TMPDIR writable,
 * and only then binds the protected paths read-only again (a `.git`, the
 * Wheelhouse home), so no writable bind can cover them. Every capability is
 * dropped, in a user namespace of its own where the kernel allows one: as
 * root, a sandbox that kept its capabilities could simply remount `/`
 * read-write. The network namespace is private (only a downed loopback)
 * unless network access is allowed. The command gets its own pid namespace
 * and session and dies with the supervisor.
 */

/** The strongest isolation first; the probe takes the first one this machine allows. */
const ISOLATION_LADDER: readonly SandboxIsolation[] = [
  { userNamespace: true, ownProc: true },
  { userNamespace: false, ownProc: true },
  { userNamespace: true, ownProc: false },
  { userNamespace: false, ownProc: false },
];

export const FULL_ISOLATION: SandboxIsolation = ISOLATION_LADDER[0]!;

function isolationFlags(isolation: SandboxIsolation): string[] {
  return [
    '--die-with-parent',
    '--new-session',
    // As root, a user namespace alone keeps every capability inside it: the drop is what holds.
    ...(isolation.userNamespace ? ['--unshare-user'] : []),
    '--cap-drop',
    'ALL',
    '--unshare-pid',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    ...(isolation.ownProc ? ['--proc', '/proc'] : []),
  ];
}

function existingDir(dir: string): string | undefined {
  try {
    return fs.statSync(dir).isDirectory() ? fs.realpathSync(dir) : undefined;
  } catch {
    return undefined;
  }
}

function depth(dir: string): number {
  return dir.split(path.sep).filter(Boolean).length;
}

/** Every folder above a protected path that lies inside a writable root (and is not one), outermost first. */
function foldersAbove(roots: readonly string[], protectedPaths: readonly string[]): string[] {
  const inside = (folder: string) => roots.some((root) => folder.startsWith(root === path.sep ? root : `${root}${path.sep}`));
  const folders = new Set<string>();
  for (const protectedPath of protectedPaths) {
    for (let folder = path.dirname(protectedPath); folder !== path.dirname(folder); folder = path.dirname(folder)) {
      if (inside(folder) && !roots.includes(folder)) folders.add(folder);
    }
  }
  return [...folders].sort((x, y) => depth(x) - depth(y));
}

export interface SandboxContext {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** What the probe found this machine allows (default: the full isolation). */
  readonly isolation?: SandboxIsolation;
  /** Kept read-only even inside a writable root, besides each workspace's git folders (the Wheelhouse home). */
  readonly protectedPaths?: readonly string[];
}

/** The argv that runs `argv` under `policy` (unchanged for danger-full-access). */
export function sandboxedArgv(executable: string, policy: SandboxPolicy, argv: readonly string[], context: SandboxContext): string[] {
  if (policy.mode === 'danger-full-access') return [...argv];
  const flags = isolationFlags(context.isolation ?? FULL_ISOLATION);
  if (policy.mode === 'workspace-write') {
    const roots: string[] = [];
    for (const root of [...(policy.writableRoots ?? [context.cwd]), '/tmp', ...(context.env.TMPDIR ? [context.env.TMPDIR] : [])]) {
      const real = existingDir(root);
      if (real && !roots.includes(real)) roots.push(real);
    }
    const protectedPaths = protectedSubpaths(roots, context.cwd, context.protectedPaths ?? []);
    // A mount point cannot be renamed: binding each writable folder above a protected path onto itself keeps
    // it from being moved away with the path and a writable look-alike put in its place (they stay as writable
    // as they were). Parents first: a later bind of a parent (/tmp) would cover what was bound inside it.
    const writable = [...roots, ...foldersAbove(roots, protectedPaths)].sort((a, b) => depth(a) - depth(b));
    for (const folder of writable) flags.push('--bind', folder, folder);
    // After every writable bind, so none can cover them again.
    for (const protectedPath of protectedPaths) flags.push('--ro-bind', protectedPath, protectedPath);
  }
  if (!policy.networkAccess) flags.push('--unshare-net');
  flags.push('--chdir', context.cwd, '--');
  return [executable, ...flags, ...argv];
}

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

/** Effective capabilities in a `/proc/<pid>/status` text; null when the line is missing. */
export function effectiveCapabilities(status: string): bigint | null {
  const match = /^CapEff:\s*([0-9a-f]+)\s*$/im.exec(status);
  return match ? BigInt(`0x${match[1]}`) : null;
}

/**
 * Runs a read-only sandbox with exactly the flags commands get, printing its
 * own /proc status: it passes only when bubblewrap starts and nothing inside
 * holds a capability. Resolves null on success, else why not.
 */
function probe(executable: string, isolation: SandboxIsolation, pathVariable: string | undefined, timeoutMs: number): Promise<string | null> {
  const argv = sandboxedArgv(executable, { mode: 'read-only' }, ['cat', '/proc/self/status'], { cwd: '/', env: {}, isolation });
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: pathVariable ?? '/usr/bin:/bin' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve(`could not run ${executable}: ${error.message}`);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        resolve(`${executable} cannot create a sandbox here (${signal ?? `exit ${code}`}): ${stderr.trim() || 'no message'}`);
        return;
      }
      const capabilities = effectiveCapabilities(stdout);
      if (capabilities === null) resolve(`${executable} started, but the sandbox's capabilities could not be read`);
      else if (capabilities !== 0n) resolve(`${executable} left capabilities inside the sandbox (CapEff ${capabilities.toString(16)}), so it would not hold`);
      else resolve(null);
    });
  });
}

/** What is weaker than usual about a sandbox with this isolation, in words for the UI; null when nothing is. */
export function isolationNote(isolation: SandboxIsolation): string | null {
  const notes: string[] = [];
  if (!isolation.userNamespace) {
    notes.push('user namespaces are unavailable here, so commands run in your own user namespace with every capability dropped');
  }
  if (!isolation.ownProc) {
    notes.push('this machine refuses a fresh /proc inside the sandbox, so commands can see (not change) the other processes on it');
  }
  return notes.length === 0 ? null : `${notes.join('; ')}.`.replace(/^./, (first) => first.toUpperCase());
}

/** Whether commands can be sandboxed on this machine, how strongly, and if not, why (in words for the UI). */
export async function detectSandbox(pathVariable: string | undefined, timeoutMs = 10_000): Promise<SandboxStatus> {
  if (process.platform !== 'linux') {
    return { available: false, reason: `no sandbox on ${process.platform}: only Linux (bubblewrap) is supported, commands run unsandboxed` };
  }
  const executable = findOnPath('bwrap', pathVariable) ?? findOnPath('bwrap', '/usr/bin:/usr/local/bin:/bin');
  if (!executable) return { available: false, reason: 'bubblewrap (bwrap) is not installed' };
  let firstFailure: string | null = null;
  for (const isolation of ISOLATION_LADDER) {
    const failure = await probe(executable, isolation, pathVariable, timeoutMs);
    if (failure === null) return { available: true, kind: 'bubblewrap', executable, isolation, note: isolationNote(isolation) };
    firstFailure ??= failure;
  }
  return { available: false, reason: firstFailure ?? `${executable} cannot create a sandbox here` };
}

/** Wheelhouse's sandbox is bubblewrap on this machine; elsewhere it would be a promise nothing keeps. */
export const REMOTE_SANDBOX_REFUSAL =
  "Wheelhouse's sandbox applies on this machine only; elsewhere a command has the rights of the account it runs as. Run it unconfined there, or run it here";
