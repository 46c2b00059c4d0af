import type { ApprovalGrant, CommandExecutionRequestApprovalParams, FileChangeRequestApprovalParams } from '../../../shared/protocol/methods/approvals.js';
import type { McpServerElicitationRequestParams, McpServerElicitationRequestResponse } from '../../../shared/protocol/methods/mcp-elicitation.js';
import { PATCH_FILES_LABEL } from '../../../shared/protocol/file-change.js';

/** A command the agent wants to run, waiting for the person. */
export interface CommandApproval {
  readonly kind: 'command';
  readonly requestId: string;
  /** Null for a background job the person created (its request names the job as thread and item). */
  readonly threadId: string | null;
  /** The background job waiting for this approval, if it is one's. */
  readonly jobId: string | null;
  /** When it was asked (ms since the epoch). */
  readonly receivedAtMs: number;
  readonly params: CommandExecutionRequestApprovalParams;
}

/** An agent's MCP tool call waiting for the person (Codex's approval-kind `mcpServer/elicitation/request`). */
export interface McpToolApproval {
  readonly kind: 'mcpTool';
  readonly requestId: string;
  readonly threadId: string;
  /** The mcpToolCall item it belongs to (Codex's request id is `mcp_tool_call_approval_<item id>`). */
  readonly itemId: string;
  readonly receivedAtMs: number;
  readonly params: McpServerElicitationRequestParams;
}

/** A patch the agent wants to apply, waiting for the person; the diff is on the `fileChange` item `params.itemId`. */
export interface FileChangeApproval {
  readonly kind: 'fileChange';
  readonly requestId: string;
  readonly threadId: string;
  readonly receivedAtMs: number;
  readonly params: FileChangeRequestApprovalParams;
}

/** A server request this window has no special view for: shown raw, with accept / decline. */
export interface OtherRequest {
  readonly kind: 'other';
  readonly requestId: string;
  /** Null for a request that belongs to no thread (a job's, or the app's own). */
  readonly threadId: string | null;
  /** Set when the request names the job it comes from. */
  readonly jobId: string | null;
  readonly receivedAtMs: number;
  readonly method: string;
  readonly params: unknown;
}

/**
 * Every request the person can be asked. A new request type adds a variant
 * here, a case in `batchResult` and `requestSummaryText`, and its views in
 * views/approvals/request-views.tsx.
 */
export type PendingRequest = CommandApproval | FileChangeApproval | McpToolApproval | OtherRequest;

/** A batch answer from the inbox. */
export type BatchVerdict = 'approve' | 'deny';

/** The result a batch approve / deny sends for one request (each type answers in its own shape). */
export function batchResult(request: PendingRequest, verdict: BatchVerdict): { decision: 'accept' | 'decline' } | McpServerElicitationRequestResponse {
  switch (request.kind) {
    case 'command':
    case 'fileChange':
    case 'other':
      return { decision: verdict === 'approve' ? 'accept' : 'decline' };
    case 'mcpTool':
      return { action: verdict === 'approve' ? 'accept' : 'decline' };
    default:
      return request satisfies never;
  }
}

/** One line naming what a request asks, for notes and labels. */
export function requestSummaryText(request: PendingRequest): string {
  switch (request.kind) {
    case 'command':
      return `Run ${request.params.command ?? 'a command'}`;
    case 'fileChange':
      return `Apply a patch${patchReasonParts(request.params.reason).files ? ` (${patchReasonParts(request.params.reason).files})` : ''}`;
    case 'other':
      return request.method;
    case 'mcpTool':
      return `Run ${mcpToolName(request)} (MCP server ${request.params.serverName})`;
    default:
      return request satisfies never;
  }
}

/** The tool an MCP approval is for: the quoted name in Codex's message, else the title in its `_meta`. */
export function mcpToolName(request: McpToolApproval): string {
  const quoted = 'message' in request.params ? /"([^"]+)"/.exec(request.params.message)?.[1] : undefined;
  if (quoted) return quoted;
  const meta = request.params._meta as Record<string, unknown> | undefined;
  return typeof meta?.['tool_title'] === 'string' ? meta['tool_title'] : 'a tool';
}

/** The separator the runtime puts before the agent's own justification in a command approval's reason. */
const AGENT_SAYS = '. The agent says: ';

/** A command approval's reason split: the policy's reading of the command (for details), and what the agent said. */
export function commandReasonParts(reason: string | null | undefined): { policy: string | null; agent: string | null } {
  if (!reason) return { policy: null, agent: null };
  const at = reason.indexOf(AGENT_SAYS);
  return at === -1 ? { policy: reason, agent: null } : { policy: reason.slice(0, at), agent: reason.slice(at + AGENT_SAYS.length) };
}

/** A patch approval's reason split at its files (see PATCH_FILES_LABEL): why it asks, and the files in words. */
export function patchReasonParts(reason: string | null | undefined): { why: string | null; files: string | null } {
  if (!reason) return { why: null, files: null };
  const at = reason.lastIndexOf(` ${PATCH_FILES_LABEL} `);
  if (at === -1) return { why: reason, files: null };
  return { why: reason.slice(0, at).replace(/\.$/, ''), files: reason.slice(at + PATCH_FILES_LABEL.length + 2) };
}

/** The thread id (or job id) a request names in its params, if any. */
/** Where a command approval comes from: a job's request names the job as its item (and as its thread when it has none). */
export function commandOriginOf(params: { readonly threadId: string; readonly itemId: string }): { threadId: string | null; jobId: string | null } {
  const jobId = params.itemId.startsWith('job-') ? params.itemId : null;
  return { threadId: jobId !== null && params.threadId === jobId ? null : params.threadId, jobId };
}

export function originOf(params: unknown): { threadId: string | null; jobId: string | null } {
  const record = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);
  return { threadId: text(record['threadId']), jobId: text(record['jobId']) };
}

/**
 * Shift-click: everything between the anchor (the last row clicked) and `target`,
 * in list order, takes the target's new state. Without a usable anchor only the target changes.
 */
export function selectRange(
  order: readonly string[],
  selected: ReadonlySet<string>,
  anchor: string | null,
  target: string,
  on: boolean,
): Set<string> {
  const next = new Set(selected);
  const to = order.indexOf(target);
  const from = anchor === null ? -1 : order.indexOf(anchor);
  const [start, end] = from === -1 ? [to, to] : [Math.min(from, to), Math.max(from, to)];
  for (let i = start; i <= end && i >= 0; i++) {
    if (on) next.add(order[i]!);
    else next.delete(order[i]!);
  }
  return next;
}

/** Keeps only selected ids that are still waiting (a row answered elsewhere leaves the selection too). */
export function pruneSelection(selected: ReadonlySet<string>, pending: readonly PendingRequest[]): ReadonlySet<string> {
  if (selected.size === 0) return selected;
  const waiting = new Set(pending.map((request) => request.requestId));
  const kept = [...selected].filter((id) => waiting.has(id));
  return kept.length === selected.size ? selected : new Set(kept);
}

/**
 * What "Approve for this thread" allows, in words: "Commands starting with
 * `npm test` in thread ‘X’, until Wheelhouse restarts (or you revoke it)".
 */
export function sessionScopeText(prefixes: readonly (readonly string[])[] | undefined, command: string | null, threadTitle: string): string {
  const words = prefixes && prefixes.length > 0 ? prefixes.map((prefix) => `\`${prefix.join(' ')}\``) : [command ? `\`${command}\`` : 'this command'];
  const list = words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} or ${words.at(-1)!}`;
  return `Commands starting with ${list} in thread ‘${threadTitle}’, until Wheelhouse restarts or you revoke it`;
}

/** Grants of every thread, oldest first. */
export function allGrants(grants: Readonly<Record<string, readonly ApprovalGrant[]>>): ApprovalGrant[] {
  return Object.values(grants)
    .flat()
    .sort((a, b) => a.grantedAtMs - b.grantedAtMs);
}
