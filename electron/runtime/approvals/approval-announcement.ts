import {
  FileChangeApprovalDecision,
  type CommandExecutionApprovalDecision,
  type NotificationParamsOf,
  type PendingApproval,
} from '../../../shared/protocol/index.js';

/**
 * `approval.requested`: the log's record that an approval waits, published by
 * the broker once per request whichever carriers are mounted (HTTP clients
 * see it on their event stream and answer at `POST /v1/approvals/{id}`).
 * Its decisions are spelled as the HTTP API spells them (snake_case).
 */

/** A decision in the HTTP API's snake_case spelling; each variant is one of Codex's CommandExecutionApprovalDecision. */
export type SnakeCaseDecision =
  | 'accept'
  | 'accept_for_session'
  | 'decline'
  | 'cancel'
  | { readonly accept_with_execpolicy_amendment: { readonly execpolicy_amendment: string[] } }
  | { readonly apply_network_policy_amendment: { readonly network_policy_amendment: { readonly host: string; readonly action: 'allow' | 'deny' } } };

/** What an MCP tool-call approval offers, in command decisions (the broker maps them to Codex's elicitation answers). */
const MCP_TOOL_DECISIONS: readonly CommandExecutionApprovalDecision[] = ['accept', 'acceptForSession', 'decline', 'cancel'];

/** What a request offers: a command's own list; a file change always Codex's four; an MCP tool call the four above. */
export function offeredDecisions(pending: PendingApproval): readonly CommandExecutionApprovalDecision[] | null {
  if (pending.method === 'item/fileChange/requestApproval') return FileChangeApprovalDecision.options;
  if (pending.method === 'mcpServer/elicitation/request') return MCP_TOOL_DECISIONS;
  return pending.params.availableDecisions ?? null;
}

/** The variant's name: what `available_decisions` offers, whatever amendment it carries. */
export function variantOf(decision: CommandExecutionApprovalDecision): string {
  return typeof decision === 'string' ? decision : Object.keys(decision)[0]!;
}

/** The variant's name in the HTTP API's spelling (`accept_for_session`, `accept_with_execpolicy_amendment`, …). */
export function snakeCaseVariantOf(decision: CommandExecutionApprovalDecision): string {
  return variantOf(decision).replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** Codex → snake_case, for the decisions a request offers. (Codex spells the amendments' inner fields in snake_case already.) */
export function snakeCaseDecisionOf(decision: CommandExecutionApprovalDecision): SnakeCaseDecision {
  if (typeof decision === 'string') return snakeCaseVariantOf(decision) as SnakeCaseDecision;
  if ('acceptWithExecpolicyAmendment' in decision) return { accept_with_execpolicy_amendment: decision.acceptWithExecpolicyAmendment };
  return { apply_network_policy_amendment: decision.applyNetworkPolicyAmendment };
}

/** The `approval.requested` payload of a waiting approval. */
export function approvalRequestedOf(pending: PendingApproval): NotificationParamsOf<'approval.requested'> {
  const { requestId, params } = pending;
  const what =
    pending.method === 'mcpServer/elicitation/request'
      ? { itemId: pending.itemId, command: null, cwd: null, reason: 'message' in pending.params ? pending.params.message : null }
      : pending.method === 'item/fileChange/requestApproval'
        ? { itemId: pending.params.itemId, command: null, cwd: null, reason: pending.params.reason ?? null }
        : { itemId: pending.params.itemId, command: pending.params.command ?? null, cwd: pending.params.cwd ?? null, reason: pending.params.reason ?? null };
  return {
    requestId,
    threadId: params.threadId,
    turnId: params.turnId ?? '',
    ...what,
    availableDecisions: offeredDecisions(pending)?.map(snakeCaseDecisionOf) ?? [],
  };
}
