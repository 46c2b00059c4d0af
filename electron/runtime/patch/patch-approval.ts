import type { AskForApproval, SandboxMode } from '../policy/policy-vocabulary.js';

export type PatchRequirement =
  | { readonly type: 'apply' }
  | { readonly type: 'ask'; readonly reason: string }
  | { readonly type: 'refuse'; readonly reason: string };

/**
 * Whether a patch may be written without asking, as Codex decides for
 * apply_patch: `untrusted` always asks; otherwise a patch the sandbox would
 * let through (every file inside the workspace under `workspace-write`, or
 * anything under `danger-full-access`) applies, and the rest asks — or is
 * refused where the policy may not ask (`never`, granular without
 * `sandbox_approval`).
 */
export function patchRequirement(input: {
  readonly approvalPolicy: AskForApproval;
  readonly sandbox: SandboxMode;
  /** Every changed path is inside the thread's folder (and not in its .git) on this computer. */
  readonly insideWorkspace: boolean;
  /** The machine whose files the patch changes, by name, when it is not this computer: the sandbox does not reach it. */
  readonly elsewhere?: string | null;
}): PatchRequirement {
  const { approvalPolicy, sandbox, insideWorkspace } = input;
  const elsewhere = input.elsewhere ?? null;
  if (approvalPolicy === 'untrusted') return { type: 'ask', reason: 'this thread asks before any file is changed' };
  if (sandbox === 'danger-full-access') return { type: 'apply' };
  if (sandbox === 'workspace-write' && insideWorkspace) return { type: 'apply' };
  const reason =
    elsewhere !== null
      ? `the patch changes files on ${elsewhere}, which this computer’s sandbox does not reach`
      : sandbox === 'read-only'
        ? 'this thread may only read files'
        : 'the patch changes files outside the thread’s folder (or its git data)';
  const mayAsk = approvalPolicy === 'never' ? false : typeof approvalPolicy === 'object' ? approvalPolicy.granular.sandbox_approval : true;
  return mayAsk ? { type: 'ask', reason } : { type: 'refuse', reason: `${reason}, and this thread never asks` };
}
