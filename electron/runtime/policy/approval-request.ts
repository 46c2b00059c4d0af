import type { ExecApprovalRequirement, ExecPolicyDecision, NetworkPolicyAmendment } from './policy-vocabulary.js';

/** Codex's `CommandExecutionApprovalDecision`. */
export type CommandExecutionApprovalDecision =
  | 'accept'
  | 'acceptForSession'
  | { readonly acceptWithExecpolicyAmendment: { readonly execpolicy_amendment: readonly string[] } }
  | { readonly applyNetworkPolicyAmendment: { readonly network_policy_amendment: NetworkPolicyAmendment } }
  | 'decline'
  | 'cancel';

/**
 * The decisions a client may offer for a command that needs approval (the
 * `availableDecisions` of `item/commandExecution/requestApproval`), as seed
 * 000's `approval_request_frame` builds them: "accept with the rule" only when
 * there is a proposed amendment, one entry per proposed network amendment.
 * Empty when the requirement needs no approval.
 */
export function availableDecisions(requirement: ExecApprovalRequirement): CommandExecutionApprovalDecision[] {
  if (requirement.type !== 'needs_approval') return [];
  const decisions: CommandExecutionApprovalDecision[] = ['accept', 'acceptForSession'];
  const amendment = requirement.proposedExecpolicyAmendment;
  if (amendment && amendment.length > 0) decisions.push({ acceptWithExecpolicyAmendment: { execpolicy_amendment: amendment } });
  for (const network of requirement.proposedNetworkPolicyAmendments) {
    decisions.push({ applyNetworkPolicyAmendment: { network_policy_amendment: network } });
  }
  decisions.push('decline', 'cancel');
  return decisions;
}

/** Seed 000's `approval_requirement_payload`: the requirement as hooks and logs see it. */
export function approvalRequirementPayload(requirement: ExecApprovalRequirement): Record<string, unknown> {
  switch (requirement.type) {
    case 'skip':
      return { type: 'skip', bypass_sandbox: requirement.bypassSandbox, reason: requirement.reason, proposed_execpolicy_amendment: [] };
    case 'needs_approval':
      return {
        type: 'needs_approval',
        reason: requirement.reason,
        proposed_execpolicy_amendment: requirement.proposedExecpolicyAmendment ?? [],
        proposed_network_policy_amendments: requirement.proposedNetworkPolicyAmendments,
      };
    case 'forbidden':
      return { type: 'forbidden', reason: requirement.reason };
  }
}

/** Seed 000's `policy_precheck_payload`, sent to tool-lifecycle hooks at the `precheck` phase. */
export function policyPrecheckPayload(decision: ExecPolicyDecision, command: string, cwd: string, executionKind: string): Record<string, unknown> {
  const { requirement } = decision;
  return {
    execution_kind: executionKind,
    command,
    cwd,
    allow: requirement.type !== 'forbidden',
    requires_approval: requirement.type === 'needs_approval',
    matched_rule: decision.matchedRule?.source ?? null,
    phase: requirement.type,
    reason: requirement.reason,
    requirement: approvalRequirementPayload(requirement),
  };
}
