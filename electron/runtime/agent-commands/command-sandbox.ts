import path from 'node:path';
import type { AdditionalPermissionProfile, CommandRunsIn } from '../../../shared/protocol/index.js';
import type { SandboxPolicy } from '../../exec/index.js';
import type { SandboxMode } from '../policy/policy-vocabulary.js';
import type { AdditionalPermissions, SandboxPermissions } from './command-tool-specs.js';

/** What a command asked for beyond the thread's sandbox, with its paths made absolute. */
export interface RequestedAdditions {
  readonly read: readonly string[];
  readonly write: readonly string[];
  readonly network: boolean;
}

export function sandboxPolicy(mode: SandboxMode, cwd: string): SandboxPolicy {
  if (mode === 'workspace-write') return { mode, writableRoots: [cwd], networkAccess: false };
  if (mode === 'read-only') return { mode, networkAccess: false };
  return { mode };
}

/** The model's `additional_permissions`, paths resolved against the command's folder. */
export function resolveAdditions(permissions: AdditionalPermissions | undefined, cwd: string): RequestedAdditions {
  const resolve = (paths: readonly string[] | undefined) => [...new Set((paths ?? []).map((p) => path.resolve(cwd, p)))];
  return {
    read: resolve(permissions?.file_system?.read),
    write: resolve(permissions?.file_system?.write),
    network: permissions?.network?.enabled === true,
  };
}

/**
 * The sandbox an approved command runs in: none when it asked to run outside
 * the sandbox, the thread's with exactly the added folders (and network) when
 * it asked for additions, else the thread's own.
 */
export function requestedSandbox(thread: SandboxPolicy, asked: SandboxPermissions, additions: RequestedAdditions): SandboxPolicy {
  if (asked === 'require_escalated') return { mode: 'danger-full-access' };
  if (asked !== 'with_additional_permissions' || thread.mode === 'danger-full-access') return thread;
  const roots = thread.mode === 'workspace-write' ? [...(thread.writableRoots ?? [])] : [];
  const networkAccess = (thread.networkAccess ?? false) || additions.network;
  // Everything outside the writable roots is readable in the sandbox already: a read request changes nothing to enforce.
  if (additions.write.length === 0) return { ...thread, networkAccess };
  return { mode: 'workspace-write', writableRoots: [...new Set([...roots, ...additions.write])], networkAccess };
}

/** Where an approved command runs, for the approval request and card. */
export function runsInOf(policy: SandboxPolicy, threadMode: SandboxMode, asked: SandboxPermissions, additions: RequestedAdditions): CommandRunsIn {
  if (policy.mode === 'danger-full-access') return { type: 'noSandbox' };
  const mode = threadMode === 'danger-full-access' ? policy.mode : threadMode;
  const writableRoots = policy.mode === 'workspace-write' ? [...(policy.writableRoots ?? [])] : [];
  const networkAccess = policy.networkAccess ?? false;
  if (asked !== 'with_additional_permissions') return { type: 'sandbox', mode, writableRoots, networkAccess };
  return { type: 'sandboxWithAdditions', mode, writableRoots, addedWritableRoots: [...additions.write], addedReadableRoots: [...additions.read], networkAccess };
}

/** Codex's `additionalPermissions` of an approval request: what was asked for beyond the sandbox, or null. */
export function additionalPermissionProfile(asked: SandboxPermissions, additions: RequestedAdditions): AdditionalPermissionProfile | null {
  if (asked !== 'with_additional_permissions') return null;
  const fileSystem = additions.read.length > 0 || additions.write.length > 0
    ? { read: additions.read.length > 0 ? [...additions.read] : null, write: additions.write.length > 0 ? [...additions.write] : null, entries: null, globScanMaxDepth: null }
    : null;
  return { fileSystem, network: additions.network ? { enabled: true } : null };
}

/**
 * Whether a failed command looks stopped by the sandbox (Codex's heuristic
 * too: the kernel's words for a denied write or call), so running it again
 * without the sandbox may be offered.
 */
export function looksLikeSandboxDenial(policy: SandboxPolicy, exitCode: number | null, output: string): boolean {
  if (policy.mode === 'danger-full-access' || exitCode === 0) return false;
  return /read-only file system|permission denied|operation not permitted/i.test(output);
}
