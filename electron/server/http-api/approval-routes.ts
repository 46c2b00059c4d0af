import type http from 'node:http';
import { z } from 'zod';
import { FileChangeApprovalDecision, type CommandExecutionApprovalDecision, type PendingApproval } from '../../../shared/protocol/index.js';
import type { CarrierRuntime } from '../../host/carrier-runtime.js';
import { snakeCase, toSnakeKeys } from './case-keys.js';
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
  if (typeof decision === 'string') return snakeCase(decision) as HttpApprovalDecision;
  if ('acceptWithExecpolicyAmendment' in decision) return { accept_with_execpolicy_amendment: decision.acceptWithExecpolicyAmendment };
  return { apply_network_policy_amendment: decision.applyNetworkPolicyAmendment };
}

/** The variant's name: what `available_decisions` offers, whatever amendment it carries. */
function variantOf(decision: CommandExecutionApprovalDecision): string {
  return typeof decision === 'string' ? decision : Object.keys(decision)[0]!;
}

/** The variant's name in the HTTP API's spelling (`accept_for_session`, `accept_with_execpolicy_amendment`, …). */
export function httpVariantOf(decision: CommandExecutionApprovalDecision): string {
  return snakeCase(variantOf(decision));
}

/** What an MCP tool-call approval offers, in command decisions (the broker maps them to Codex's elicitation answers). */
const MCP_TOOL_DECISIONS: readonly CommandExecutionApprovalDecision[] = ['accept', 'acceptForSession', 'decline', 'cancel'];

/** What a request offers: a command's own list; a file change always Codex's four; an MCP tool call the four above. */
function offeredDecisions(pending: PendingApproval): readonly CommandExecutionApprovalDecision[] | null {
  if (pending.method === 'item/fileChange/requestApproval') return FileChangeApprovalDecision.options;
  if (pending.method === 'mcpServer/elicitation/request') return MCP_TOOL_DECISIONS;
  return pending.params.availableDecisions ?? null;
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
 * Command approvals answered over HTTP, through the same broker as the
 * WebSocket carrier: the first answer from any client wins; a later one gets
 * 409, an unknown id 404, a decision the request does not offer 400.
 */
export class ApprovalRoutes {
  private readonly removeSender: () => void;

  constructor(private readonly runtime: CarrierRuntime) {
    // Every approval is also announced on the event streams, where HTTP clients look.
    this.removeSender = runtime.approvals.addSender((pending) => this.announce(pending));
  }

  close(): void {
    this.removeSender();
  }

  list(res: http.ServerResponse, query: URLSearchParams): void {
    const { thread_id: threadId } = parseBody(ListApprovalsQuery, Object.fromEntries(query), 'query');
    if (threadId !== undefined) this.runtime.threads.require(threadId);
    sendJson(res, 200, { data: this.runtime.approvals.list(threadId).map(httpApprovalOf) });
  }

  private announce(pending: PendingApproval): void {
    const { requestId, params } = pending;
    // A job the person created has no thread: its request names the job instead, on the all-events stream.
    const ephemeral = this.isEphemeralThread(params.threadId);
    const turnId = params.turnId ?? '';
    const what =
      pending.method === 'mcpServer/elicitation/request'
        ? { itemId: pending.itemId, command: null, cwd: null, reason: 'message' in pending.params ? pending.params.message : null }
        : pending.method === 'item/fileChange/requestApproval'
          ? { itemId: pending.params.itemId, command: null, cwd: null, reason: pending.params.reason ?? null }
          : { itemId: pending.params.itemId, command: pending.params.command ?? null, cwd: pending.params.cwd ?? null, reason: pending.params.reason ?? null };
    this.runtime.events.publish(
      'approval.requested',
      { requestId, threadId: params.threadId, turnId, ...what, availableDecisions: offeredDecisions(pending)?.map(httpDecisionOf) ?? [] },
      ephemeral === null ? { ephemeral: true } : { threadId: params.threadId, turnId, ephemeral },
    );
  }

  /** Whether the thread lives in memory only; null when there is no such thread. */
  private isEphemeralThread(threadId: string): boolean | null {
    try {
      return this.runtime.threads.require(threadId).record.ephemeral;
    } catch {
      return null;
    }
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
      const names = offered.map((choice) => JSON.stringify(httpVariantOf(choice)));
      throw new HttpError(400, 'invalid_params', `approval ${requestId} does not offer that decision (offered: ${names.join(', ')})`);
    }
    // Synchronous from the lookup on: no other answer can slip in between.
    this.runtime.approvals.answer(requestId, codex);
    sendJson(res, 200, { request_id: requestId, status: 'answered' });
  }
}
