import type http from 'node:http';
import { z } from 'zod';
import type { CommandExecutionApprovalDecision, PendingApproval } from '../../../shared/protocol/index.js';
import { offeredDecisions, snakeCaseDecisionOf, snakeCaseVariantOf, variantOf } from '../../runtime/approvals/approval-announcement.js';
import type { CarrierRuntime } from '../../host/carrier-runtime.js';
import { toSnakeKeys } from './case-keys.js';
import { HttpError, sendJson } from './http-errors.js';
import { parseBody, readJsonBody } from './request-body.js';

/** A decision in the HTTP API's snake_case; each variant is one of Codex's CommandExecutionApprovalDecision. */
const HttpApprovalDecision = z.union([
  z.enum(['accept', 'accept_for_session', 'decline', 'cancel']),
  z.object({ accept_with_execpolicy_amendment: z.object({ execpolicy_amendment: z.array(z.string().min(1)).min(1) }).strict() }).strict(),
  z
    .object({
      apply_network_policy_amendment: z
        .object({ network_policy_amendment: z.object({ host: z.string().min(1), action: z.enum(['allow', 'deny']) }).strict() })
        .strict(),
    })
    .strict(),
]);
type HttpApprovalDecision = z.infer<typeof HttpApprovalDecision>;

const ApprovalAnswer = z.object({ decision: HttpApprovalDecision }).strict();
const ListApprovalsQuery = z.object({ thread_id: z.string().min(1).optional() }).strict();

/** snake_case → Codex. (Codex itself spells the inner fields in snake_case, so only the variant names change.) */
export function codexDecisionOf(decision: HttpApprovalDecision): CommandExecutionApprovalDecision {
  if (decision === 'accept_for_session') return 'acceptForSession';
  if (typeof decision === 'string') return decision;
  if ('accept_with_execpolicy_amendment' in decision) return { acceptWithExecpolicyAmendment: decision.accept_with_execpolicy_amendment };
  return { applyNetworkPolicyAmendment: decision.apply_network_policy_amendment };
}

/** Codex → snake_case, for the decisions a request offers. */
export function httpDecisionOf(decision: CommandExecutionApprovalDecision): HttpApprovalDecision {
  return snakeCaseDecisionOf(decision) as HttpApprovalDecision;
}

/** A waiting approval as the HTTP API shows it (snake_case; decisions in the API's spelling). */
export function httpApprovalOf(pending: PendingApproval): Record<string, unknown> {
  const params: Record<string, unknown> = pending.method === 'mcpServer/elicitation/request' ? { ...pending.params, itemId: pending.itemId } : { ...pending.params };
  delete params['availableDecisions'];
  return {
    request_id: pending.requestId,
    method: pending.method,
    params: {
      ...(toSnakeKeys(params) as Record<string, unknown>),
      available_decisions: offeredDecisions(pending)?.map(httpDecisionOf) ?? null,
    },
  };
}

/**
 * Command approvals answered over HTTP, through the same broker as every
 * other carrier: the first answer from any client wins; a later one gets
 * 409, an unknown id 404, a decision the request does not offer 400. The
 * broker announces each approval on the event streams (`approval.requested`)
 * whether or not this API is mounted.
 */
export class ApprovalRoutes {
  constructor(private readonly runtime: CarrierRuntime) {}

  list(res: http.ServerResponse, query: URLSearchParams): void {
    const { thread_id: threadId } = parseBody(ListApprovalsQuery, Object.fromEntries(query), 'query');
    if (threadId !== undefined) this.runtime.threads.require(threadId);
    sendJson(res, 200, { data: this.runtime.approvals.list(threadId).map(httpApprovalOf) });
  }

  async answer(req: http.IncomingMessage, res: http.ServerResponse, requestId: string): Promise<void> {
    const { decision } = parseBody(ApprovalAnswer, await readJsonBody(req), 'approval answer');
    const pending = this.runtime.approvals.list().find((approval) => approval.requestId === requestId);
    if (!pending) {
      const finished = this.runtime.finishedApprovalState(requestId);
      if (finished) throw new HttpError(409, 'approval_finished', `approval ${requestId} is no longer waiting (${finished})`);
      throw new HttpError(404, 'approval_not_found', `no approval ${requestId}`);
    }
    const codex = codexDecisionOf(decision);
    const offered = offeredDecisions(pending);
    if (offered && !offered.some((choice) => variantOf(choice) === variantOf(codex))) {
      const names = offered.map((choice) => JSON.stringify(snakeCaseVariantOf(choice)));
      throw new HttpError(400, 'invalid_params', `approval ${requestId} does not offer that decision (offered: ${names.join(', ')})`);
    }
    // Synchronous from the lookup on: no other answer can slip in between.
    this.runtime.approvals.answer(requestId, codex);
    sendJson(res, 200, { request_id: requestId, status: 'answered' });
  }
}
