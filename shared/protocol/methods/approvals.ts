import { z } from 'zod';
import { CommandAction, CommandExecutionApprovalDecision, NetworkPolicyAmendment, PolicyDecidedBy } from '../command-execution.js';
import { defineMethod, defineNotification, perThread } from '../define.js';
import { McpServerElicitationRequestParams, McpServerElicitationRequestResponse } from './mcp-elicitation.js';
import { FileChangeApprovalDecision } from '../file-change.js';

/**
 * Wheelhouse: where an approved command runs, so the person knows what they
 * allow: in the thread's sandbox, in it with exactly the added folders (and
 * network), or outside any sandbox.
 */
export const CommandRunsIn = z.discriminatedUnion('type', [
  z.object({ type: z.literal('sandbox'), mode: z.enum(['read-only', 'workspace-write']), writableRoots: z.array(z.string()), networkAccess: z.boolean() }),
  z.object({
    type: z.literal('sandboxWithAdditions'),
    mode: z.enum(['read-only', 'workspace-write']),
    writableRoots: z.array(z.string()),
    /** The folders (and network) the model asked for on top of the thread's sandbox. */
    addedWritableRoots: z.array(z.string()),
    addedReadableRoots: z.array(z.string()),
    networkAccess: z.boolean(),
  }),
  z.object({ type: z.literal('noSandbox') }),
]);
export type CommandRunsIn = z.infer<typeof CommandRunsIn>;

/** Codex `AdditionalPermissionProfile`: what a command asks for beyond the sandbox. */
export const AdditionalPermissionProfile = z.object({
  fileSystem: z
    .object({ read: z.array(z.string()).nullable(), write: z.array(z.string()).nullable(), entries: z.null(), globScanMaxDepth: z.null() })
    .nullable(),
  network: z.object({ enabled: z.boolean().nullable() }).nullable(),
});
export type AdditionalPermissionProfile = z.infer<typeof AdditionalPermissionProfile>;

/** Codex `CommandExecutionRequestApprovalParams` (every field sent; null where Wheelhouse has no value). */
export const CommandExecutionRequestApprovalParams = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  approvalId: z.string().nullable().optional(),
  startedAtMs: z.number().int(),
  kind: z.enum(['command', 'writeStdin', 'humanCommand']).optional(),
  command: z.string().nullable().optional(),
  cwd: z.string().nullable().optional(),
  commandActions: z.array(CommandAction).nullable().optional(),
  reason: z.string().nullable().optional(),
  proposedExecpolicyAmendment: z.array(z.string()).nullable().optional(),
  proposedNetworkPolicyAmendments: z.array(NetworkPolicyAmendment).nullable().optional(),
  availableDecisions: z.array(CommandExecutionApprovalDecision).nullable().optional(),
  additionalPermissions: AdditionalPermissionProfile.nullable().optional(),
  networkApprovalContext: z.unknown().optional(),
  environmentId: z.string().nullable().optional(),
  /** Wheelhouse: the exec-policy rule (or default) that asked for this approval. */
  decidedBy: PolicyDecidedBy.nullable().optional(),
  /** Wheelhouse: where the command runs if approved. */
  runsIn: CommandRunsIn.nullable().optional(),
  /** Wheelhouse: this asks to run a command again without the sandbox, after the sandbox stopped it. */
  retryOfSandboxDenial: z.boolean().optional(),
});
export type CommandExecutionRequestApprovalParams = z.infer<typeof CommandExecutionRequestApprovalParams>;

export const CommandExecutionRequestApprovalResponse = z.object({ decision: CommandExecutionApprovalDecision });

/**
 * Codex `FileChangeRequestApprovalParams`. The changes themselves are on the
 * `fileChange` item announced (item/started) just before the request.
 */
export const FileChangeRequestApprovalParams = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  startedAtMs: z.number().int(),
  reason: z.string().nullable().optional(),
  /** Codex: a root the agent asks to write under for the session; Wheelhouse never asks for one (null). */
  grantRoot: z.string().nullable().optional(),
  /** Wheelhouse (as on command approvals): the machine whose files the patch changes; absent: this computer. */
  environmentId: z.string().nullable().optional(),
});
export type FileChangeRequestApprovalParams = z.infer<typeof FileChangeRequestApprovalParams>;

export const FileChangeRequestApprovalResponse = z.object({ decision: FileChangeApprovalDecision });

export const approvalServerRequests = {
  'item/commandExecution/requestApproval': defineMethod(
    CommandExecutionRequestApprovalParams,
    CommandExecutionRequestApprovalResponse,
    'The agent wants to run a command that needs the person’s approval; the turn waits for the first answer.',
  ),
  'item/fileChange/requestApproval': defineMethod(
    FileChangeRequestApprovalParams,
    FileChangeRequestApprovalResponse,
    'The agent wants to apply a patch (the changes are on the fileChange item); the turn waits for the first answer.',
  ),
} as const;

export const commandNotifications = {
  'item/commandExecution/outputDelta': defineNotification(
    z.object({ threadId: z.string(), turnId: z.string(), itemId: z.string(), delta: z.string() }),
    'Output of a running command, batched.',
  ),
} as const;

/**
 * A request still waiting for an answer, as `approval/list` reports it: a
 * command, a patch, or an agent's MCP tool call (sent as Codex does, an
 * `mcpServer/elicitation/request` whose `_meta.codex_approval_kind` is
 * `mcp_tool_call`; `itemId` is its mcpToolCall item).
 */
export const PendingApproval = z.discriminatedUnion('method', [
  z.object({
    requestId: z.string(),
    method: z.literal('item/commandExecution/requestApproval'),
    params: CommandExecutionRequestApprovalParams,
    /** What "accept for session" would allow in the thread: commands starting with each argv prefix (Wheelhouse's own). */
    sessionPrefixes: z.array(z.array(z.string())).optional(),
  }),
  z.object({
    requestId: z.string(),
    method: z.literal('mcpServer/elicitation/request'),
    params: McpServerElicitationRequestParams,
    itemId: z.string(),
  }),
  /** A patch: "accept for session" lets the thread's patches inside its folder through; the diff is on the fileChange item. */
  z.object({ requestId: z.string(), method: z.literal('item/fileChange/requestApproval'), params: FileChangeRequestApprovalParams }),
]);
export type PendingApproval = z.infer<typeof PendingApproval>;

/** Codex's `_meta` keys of an MCP tool-call approval (codex_protocol::mcp_approval_meta). */
export const MCP_TOOL_APPROVAL_META = {
  kindKey: 'codex_approval_kind',
  kindMcpToolCall: 'mcp_tool_call',
  persistKey: 'persist',
  persistSession: 'session',
  persistAlways: 'always',
  toolTitleKey: 'tool_title',
  toolDescriptionKey: 'tool_description',
  toolParamsKey: 'tool_params',
} as const;

/** Codex's request id of the approval for MCP tool call `callId` (the mcpToolCall item id). */
export const mcpToolApprovalRequestId = (callId: string): string => `mcp_tool_call_approval_${callId}`;

/** Whether an elicitation is Codex's MCP tool-call approval rather than a server's own question. */
export function isMcpToolApproval(params: { readonly _meta?: unknown }): boolean {
  const meta = params._meta;
  return typeof meta === 'object' && meta !== null && (meta as Record<string, unknown>)[MCP_TOOL_APPROVAL_META.kindKey] === MCP_TOOL_APPROVAL_META.kindMcpToolCall;
}

/** What a grant covers: commands (the default) or the thread's patches inside its folder. */
export const ApprovalGrantKind = z.enum(['command', 'fileChange']);
export type ApprovalGrantKind = z.infer<typeof ApprovalGrantKind>;

/**
 * "Accept for session": commands starting with `prefix` run without asking in
 * that thread until revoked; a `fileChange` grant (empty prefix) lets the
 * thread's patches inside `root` apply without asking.
 */
export const ApprovalGrant = z.object({
  threadId: z.string(),
  prefix: z.array(z.string()),
  grantedAtMs: z.number().int(),
  kind: ApprovalGrantKind.optional(),
  root: z.string().optional(),
});
export type ApprovalGrant = z.infer<typeof ApprovalGrant>;

/** Wheelhouse's own notifications about approvals. */
export const approvalNotifications = {
  'approval/grants/changed': defineNotification(
    z.object({ threadId: z.string(), grants: z.array(ApprovalGrant) }),
    'A thread’s "accept for session" grants changed (granted or revoked).',
  ),
  /**
   * The HTTP API's announcement of a waiting approval on the event streams
   * (an HTTP client gets no server request): answer it with
   * `POST /v1/approvals/{requestId}`. `availableDecisions` are in the HTTP
   * API's snake_case spelling (`accept_for_session`, …).
   */
  'approval.requested': defineNotification(
    z.object({
      requestId: z.string(),
      threadId: z.string(),
      turnId: z.string(),
      itemId: z.string(),
      command: z.string().nullable(),
      cwd: z.string().nullable(),
      reason: z.string().nullable(),
      availableDecisions: z.array(z.unknown()),
    }),
    'A command or file change approval waits (command and cwd are null for a file change); HTTP clients answer it at POST /v1/approvals/{requestId}.',
  ),
} as const;

/**
 * `approval/answer`: a decision (command, file change, or an MCP tool call by
 * its command-decision meaning), or for an MCP tool call the elicitation
 * answer itself, so a remembered choice ("always") reaches the runtime.
 */
export const ApprovalAnswerParams = z.union([
  z.object({ requestId: z.string(), decision: CommandExecutionApprovalDecision }).strict(),
  z.object({ requestId: z.string(), response: McpServerElicitationRequestResponse }).strict(),
]);
export type ApprovalAnswerParams = z.infer<typeof ApprovalAnswerParams>;

export const approvalMethods = {
  'approval/list': defineMethod(
    z.object({ threadId: z.string().nullable().optional() }),
    z.object({ data: z.array(PendingApproval) }),
    'Approvals still waiting, oldest first (all threads unless one is named).',
  ),
  'approval/answer': defineMethod(
    ApprovalAnswerParams,
    z.object({}),
    'Answers a waiting approval, like answering its server request; an unknown or already answered one is an error. For an MCP tool call: accept runs it, acceptForSession also trusts the tool in that thread, decline and cancel skip it; or `response`, its elicitation answer verbatim (`_meta.persist` "session" or "always" trusts the tool in that thread or for good).',
  ),
  'approval/grants/list': defineMethod(
    z.object({ threadId: z.string().nullable().optional() }),
    z.object({ data: z.array(ApprovalGrant) }),
    'The thread’s "accept for session" grants (every thread’s, oldest first, when none is named).',
  ),
  'approval/grants/revoke': defineMethod(
    z.object({ threadId: z.string(), prefix: z.array(z.string()), kind: ApprovalGrantKind.nullable().optional() }),
    z.object({ revoked: z.boolean() }),
    'Ends an "accept for session" grant: those commands (or, with kind fileChange, the thread’s patches) ask again.',
    perThread,
  ),
} as const;
