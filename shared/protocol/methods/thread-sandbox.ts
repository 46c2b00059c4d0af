import { z } from 'zod';
import { defineMethod, defineNotification, perThread } from '../define.js';
import { AskForApproval, SandboxMode } from '../thread.js';
import { TurnEnvironmentParams } from './environment.js';

/**
 * A thread's sandbox and approval policy as the conversation header shows
 * them (Wheelhouse's `thread/sandbox/read` and `thread/sandbox/changed`),
 * changed through Codex's `thread/settings/update`.
 */
export const ThreadSandboxState = z.object({
  threadId: z.string(),
  /** The mode commands run in: the thread's choice, else the default (workspace-write where a sandbox exists). */
  sandbox: SandboxMode,
  approvalPolicy: AskForApproval,
  /** Whether the thread chose them (false: the defaults apply). */
  sandboxChosen: z.boolean(),
  approvalPolicyChosen: z.boolean(),
  /** Whether this machine can sandbox commands (Linux with bubblewrap). */
  sandboxAvailable: z.boolean(),
  sandboxKind: z.literal('bubblewrap').nullable(),
  /** Why there is no sandbox, when there is none. */
  sandboxUnavailableReason: z.string().nullable(),
  /** What is weaker than usual about the sandbox on this machine (e.g. no user namespaces), in words; null when nothing is. */
  sandboxNote: z.string().nullable(),
  /** One line for the header, e.g. "Workspace write · sandboxed (bubblewrap)". */
  summary: z.string(),
});
export type ThreadSandboxState = z.infer<typeof ThreadSandboxState>;

/** Codex `SandboxPolicy` as a client sends it (fields with defaults may be left out). */
const SandboxPolicyInput = z.discriminatedUnion('type', [
  z.object({ type: z.literal('dangerFullAccess') }),
  z.object({ type: z.literal('readOnly'), networkAccess: z.boolean().nullable().optional() }),
  z.object({
    type: z.literal('workspaceWrite'),
    writableRoots: z.array(z.string()).nullable().optional(),
    networkAccess: z.boolean().nullable().optional(),
    excludeTmpdirEnvVar: z.boolean().nullable().optional(),
    excludeSlashTmp: z.boolean().nullable().optional(),
  }),
  z.object({ type: z.literal('externalSandbox'), networkAccess: z.unknown().optional() }),
]);

/**
 * Codex `ThreadSettingsUpdateParams`. Wheelhouse applies `approvalPolicy` and
 * `sandboxPolicy`; any other setting given (non-null) is refused by name, so
 * nothing is silently ignored.
 */
export const ThreadSettingsUpdateParams = z
  .object({
    threadId: z.string().min(1).max(200),
    approvalPolicy: z.union([AskForApproval, z.object({ granular: z.unknown() })]).nullable().optional(),
    sandboxPolicy: SandboxPolicyInput.nullable().optional(),
    /** Codex: where the next turns' commands run (`[]`: this computer; null or absent: unchanged). */
    environments: z.array(TurnEnvironmentParams).max(16).nullable().optional(),
  })
  .catchall(z.unknown());

export const threadSandboxMethods = {
  'thread/settings/update': defineMethod(
    ThreadSettingsUpdateParams,
    z.object({}),
    'Changes a thread’s approval policy and sandbox for its next commands (Codex’s method; other settings are refused).',
    perThread,
  ),
  'thread/sandbox/read': defineMethod(
    z.object({ threadId: z.string().min(1).max(200) }),
    ThreadSandboxState,
    'A thread’s sandbox mode and approval policy in effect, and whether this machine can sandbox at all.',
  ),
} as const;

export const threadSandboxNotifications = {
  'thread/sandbox/changed': defineNotification(ThreadSandboxState, 'A thread’s sandbox mode or approval policy changed.'),
} as const;
