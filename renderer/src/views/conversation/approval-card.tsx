import { ShieldQuestion } from 'lucide-react';
import { useId } from 'react';
import type { CommandExecutionApprovalDecision } from '../../../../shared/protocol/command-execution.js';
import { threadTitle } from '../../format/thread-labels.js';
import { useApprovalsStore, useThreadsStore } from '../../services/services.js';
import { InlineCode } from '../common/inline-code.js';
import { commandReasonParts, sessionScopeText } from '../../stores/approval-requests.js';
import type { CommandApproval, OtherRequest } from '../../stores/approvals-store.js';
import { DecidedByLine } from './decided-by-line.js';
import { AnswerFailure } from '../approvals/answer-failure.js';
import { ApprovalCardFrame } from './approval-card-frame.js';
import { RunsInLine } from './runs-in-line.js';

/** Keys that answer a focused approval card. */
const SHORTCUTS: Readonly<Record<string, 'accept' | 'thread' | 'rule' | 'decline' | 'cancel'>> = {
  a: 'accept',
  t: 'thread',
  r: 'rule',
  d: 'decline',
  s: 'cancel',
};

/** "Run this command?" with the agent's reason and the person's choices; answered once, here or in another window. */
export function ApprovalCard({ approval }: { readonly approval: CommandApproval }) {
  const answer = useApprovalsStore((s) => s.answerCommand);
  const scopes = useApprovalsStore((s) => s.sessionScopes[approval.requestId]);
  const thread = useThreadsStore((s) => (approval.threadId === null ? undefined : s.threads[approval.threadId]));
  const scopeId = useId();
  const { params } = approval;
  const reason = commandReasonParts(params.reason);
  const amendment = params.proposedExecpolicyAmendment ?? null;
  const offered = params.availableDecisions ?? ['accept', 'acceptForSession', 'decline', 'cancel'];
  const offers = (name: string) => offered.some((decision) => (typeof decision === 'string' ? decision === name : name in decision));
  const choose = (choice: 'accept' | 'thread' | 'rule' | 'decline' | 'cancel') => {
    const decision: CommandExecutionApprovalDecision | null =
      choice === 'accept'
        ? 'accept'
        : choice === 'thread'
          ? 'acceptForSession'
          : choice === 'rule'
            ? amendment && offers('acceptWithExecpolicyAmendment')
              ? { acceptWithExecpolicyAmendment: { execpolicy_amendment: amendment } }
              : null
            : choice;
    if (decision) answer(approval.requestId, decision);
  };
  const retry = params.retryOfSandboxDenial === true;
  return (
    <ApprovalCardFrame
      label={retry ? 'Run again without the sandbox?' : 'Approve this command?'}
      title={retry ? 'The sandbox stopped this command. Run it again without the sandbox?' : 'Run this command?'}
      testId="approval-card"
      shortcuts={SHORTCUTS}
      onChoose={choose}
    >
      {!retry && <DecidedByLine decidedBy={params.decidedBy} waiting policyReason={reason.policy} />}
      <RunsInLine runsIn={params.runsIn} />
      {reason.agent && (
        <p className="approval-reason" data-testid="approval-agent-says">
          The agent says: <InlineCode text={reason.agent} />
        </p>
      )}
      <div className="approval-actions">
        <button type="button" className="button button-primary" data-testid="approval-accept" onClick={() => choose('accept')}>
          {retry ? 'Run again without the sandbox' : 'Approve'} <kbd>A</kbd>
        </button>
        {offers('acceptForSession') && (
          <button
            type="button"
            className="button button-secondary"
            data-testid="approval-accept-thread"
            aria-describedby={scopeId}
            onClick={() => choose('thread')}
          >
            Approve for this thread <kbd>T</kbd>
          </button>
        )}
        {amendment && offers('acceptWithExecpolicyAmendment') && (
          <button
            type="button"
            className="button button-secondary"
            data-testid="approval-accept-rule"
            title={`Adds an allow rule for “${amendment.join(' ')}” to your rules file`}
            onClick={() => choose('rule')}
          >
            Always allow “{amendment.join(' ')}” <kbd>R</kbd>
          </button>
        )}
        {networkAmendments(offered).map((amendment) => (
          <button
            key={amendment.host}
            type="button"
            className="button button-secondary"
            data-testid="approval-network-allow"
            title={`The sandbox has no network. This runs the command with network access (the sandbox cannot limit it to ${amendment.host}); nothing is remembered.`}
            onClick={() => answer(approval.requestId, { applyNetworkPolicyAmendment: { network_policy_amendment: amendment } })}
          >
            Approve with network for {amendment.host}
          </button>
        ))}
        <button type="button" className="button button-secondary" data-testid="approval-decline" onClick={() => choose('decline')}>
          Deny <kbd>D</kbd>
        </button>
        {offers('cancel') && (
          <button type="button" className="button button-danger" data-testid="approval-cancel" onClick={() => choose('cancel')}>
            Stop turn <kbd>S</kbd>
          </button>
        )}
      </div>
      {offers('acceptForSession') && (
        <p className="approval-scope" id={scopeId} data-testid="approval-scope">
          “Approve for this thread”: <InlineCode text={sessionScopeText(scopes, params.command ?? null, thread ? threadTitle(thread) : 'this thread')} />.
        </p>
      )}
      <AnswerFailure requestId={approval.requestId} />
    </ApprovalCardFrame>
  );
}

/** The network amendments a request offers to allow (Codex's `applyNetworkPolicyAmendment` decisions). */
function networkAmendments(offered: readonly CommandExecutionApprovalDecision[]): { host: string; action: 'allow' | 'deny' }[] {
  return offered.flatMap((decision) =>
    typeof decision === 'object' && 'applyNetworkPolicyAmendment' in decision && decision.applyNetworkPolicyAmendment.network_policy_amendment.action === 'allow'
      ? [decision.applyNetworkPolicyAmendment.network_policy_amendment]
      : [],
  );
}

/** A request this window has no view for: its method and raw params, and accept / decline, so nothing waits unseen. */
export function OtherRequestCard({ request }: { readonly request: OtherRequest }) {
  const answer = useApprovalsStore((s) => s.answerOther);
  return (
    <div className="approval-card" role="group" aria-label={`Request: ${request.method}`} data-testid="other-request-card">
      <div className="approval-head">
        <ShieldQuestion size={15} strokeWidth={2} aria-hidden="true" />
        <span className="approval-title">The agent asks: {request.method}</span>
      </div>
      <pre className="command-output">{JSON.stringify(request.params, null, 2)}</pre>
      <div className="approval-actions">
        <button type="button" className="button button-primary" onClick={() => answer(request.requestId, true)}>
          Accept
        </button>
        <button type="button" className="button button-secondary" onClick={() => answer(request.requestId, false)}>
          Decline
        </button>
      </div>
    </div>
  );
}
