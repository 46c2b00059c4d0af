import { useId } from 'react';
import { useApprovalsStore } from '../../services/services.js';
import { InlineCode } from '../common/inline-code.js';
import { AnswerFailure } from './answer-failure.js';
import { MCP_TOOL_APPROVAL_META } from '../../../../shared/protocol/methods/approvals.js';
import { formatArguments } from '../../format/tool-calls.js';
import { DecidedByLine } from '../conversation/decided-by-line.js';
import { commandReasonParts, mcpToolName, patchReasonParts, sessionScopeText, type CommandApproval, type FileChangeApproval, type McpToolApproval, type OtherRequest, type PendingRequest } from '../../stores/approval-requests.js';

/**
 * The inbox's views of each request type: what it asks, and the decisions it
 * offers. A new request type adds one case to each switch and its two small
 * components; the inbox row, batch answers and the badge need nothing else.
 */
export function RequestDetails({ request }: { readonly request: PendingRequest }) {
  switch (request.kind) {
    case 'command':
      return <CommandDetails request={request} />;
    case 'fileChange':
      return <FileChangeDetails request={request} />;
    case 'mcpTool':
      return <McpToolDetails request={request} />;
    case 'other':
      return <OtherDetails request={request} />;
    default:
      return request satisfies never;
  }
}

export function RequestDecisions({ request, threadTitle }: { readonly request: PendingRequest; readonly threadTitle: string }) {
  return (
    <>
      <DecisionsOf request={request} threadTitle={threadTitle} />
      <AnswerFailure requestId={request.requestId} />
    </>
  );
}

function DecisionsOf({ request, threadTitle }: { readonly request: PendingRequest; readonly threadTitle: string }) {
  switch (request.kind) {
    case 'command':
      return <CommandDecisions request={request} threadTitle={threadTitle} />;
    case 'fileChange':
      return <FileChangeDecisions request={request} threadTitle={threadTitle} />;
    case 'mcpTool':
      return <McpToolDecisions request={request} threadTitle={threadTitle} />;
    case 'other':
      return <OtherDecisions request={request} />;
    default:
      return request satisfies never;
  }
}

function CommandDetails({ request }: { readonly request: CommandApproval }) {
  const { params } = request;
  const reason = commandReasonParts(params.reason);
  return (
    <div className="inbox-request-details">
      <p className="inbox-request-what">
        Run <code className="inbox-command">{params.command ?? '(no command given)'}</code>
        {params.cwd ? (
          <>
            {' '}
            in <code className="inbox-cwd">{params.cwd}</code>
          </>
        ) : null}
      </p>
      <DecidedByLine decidedBy={params.decidedBy} waiting policyReason={reason.policy} />
      {reason.agent && (
        <p className="inbox-request-reason">
          The agent says: <InlineCode text={reason.agent} />
        </p>
      )}
    </div>
  );
}

function CommandDecisions({ request, threadTitle }: { readonly request: CommandApproval; readonly threadTitle: string }) {
  const answer = useApprovalsStore((s) => s.answerCommand);
  const scopes = useApprovalsStore((s) => s.sessionScopes[request.requestId]);
  const scopeId = useId();
  const offered = request.params.availableDecisions ?? ['accept', 'acceptForSession', 'decline', 'cancel'];
  const forThread = offered.includes('acceptForSession');
  const label = request.params.command ?? 'this command';
  return (
    <div className="inbox-decisions">
      <div className="approval-actions">
        <button type="button" className="button button-primary" data-testid="inbox-accept" aria-label={`Approve: ${label}`} onClick={() => answer(request.requestId, 'accept')}>
          Approve
        </button>
        {forThread && (
          <button
            type="button"
            className="button button-secondary"
            data-testid="inbox-accept-thread"
            aria-label={`Approve for this thread: ${label}`}
            aria-describedby={scopeId}
            onClick={() => answer(request.requestId, 'acceptForSession')}
          >
            Approve for this thread
          </button>
        )}
        <button type="button" className="button button-secondary" data-testid="inbox-decline" aria-label={`Deny: ${label}`} onClick={() => answer(request.requestId, 'decline')}>
          Deny
        </button>
      </div>
      {forThread && (
        <p className="approval-scope" id={scopeId} data-testid="inbox-scope">
          For this thread: <InlineCode text={sessionScopeText(scopes, request.params.command ?? null, threadTitle)} />.
        </p>
      )}
    </div>
  );
}

function FileChangeDetails({ request }: { readonly request: FileChangeApproval }) {
  const { why, files } = patchReasonParts(request.params.reason);
  return (
    <div className="inbox-request-details">
      <p className="inbox-request-what">
        Change files{files ? <>: {files}</> : null} (the changes are shown in the thread)
      </p>
      {why && <p className="inbox-request-reason">Asks because {why}.</p>}
    </div>
  );
}

function FileChangeDecisions({ request, threadTitle }: { readonly request: FileChangeApproval; readonly threadTitle: string }) {
  const answer = useApprovalsStore((s) => s.answerFileChange);
  const scopeId = useId();
  return (
    <div className="inbox-decisions">
      <div className="approval-actions">
        <button type="button" className="button button-primary" data-testid="inbox-accept" aria-label="Apply this patch" onClick={() => answer(request.requestId, 'accept')}>
          Apply
        </button>
        <button
          type="button"
          className="button button-secondary"
          data-testid="inbox-accept-thread"
          aria-label="Apply all patches in this thread"
          aria-describedby={scopeId}
          onClick={() => answer(request.requestId, 'acceptForSession')}
        >
          Apply all in this thread
        </button>
        <button type="button" className="button button-secondary" data-testid="inbox-decline" aria-label="Deny this patch" onClick={() => answer(request.requestId, 'decline')}>
          Deny
        </button>
      </div>
      <p className="approval-scope" id={scopeId} data-testid="inbox-scope">
        For this thread: patches inside the folder of thread ‘{threadTitle}’, until Wheelhouse restarts or you revoke it.
      </p>
    </div>
  );
}

function McpToolDetails({ request }: { readonly request: McpToolApproval }) {
  const meta = (request.params._meta ?? {}) as Record<string, unknown>;
  const args = meta[MCP_TOOL_APPROVAL_META.toolParamsKey];
  return (
    <div className="inbox-request-details">
      <p className="inbox-request-what">
        Run <code className="inbox-command">{mcpToolName(request)}</code> of MCP server <code>{request.params.serverName}</code>
      </p>
      {args !== undefined && (
        <pre className="inbox-raw" tabIndex={0} aria-label={`Arguments of ${mcpToolName(request)}`}>
          {formatArguments(args)}
        </pre>
      )}
    </div>
  );
}

function McpToolDecisions({ request, threadTitle }: { readonly request: McpToolApproval; readonly threadTitle: string }) {
  const answer = useApprovalsStore((s) => s.answerMcpTool);
  const persist = ((request.params._meta ?? {}) as Record<string, unknown>)[MCP_TOOL_APPROVAL_META.persistKey];
  const forThread = persist === MCP_TOOL_APPROVAL_META.persistSession || (Array.isArray(persist) && persist.includes(MCP_TOOL_APPROVAL_META.persistSession));
  const label = mcpToolName(request);
  return (
    <div className="approval-actions">
      <button type="button" className="button button-primary" data-testid="inbox-accept" aria-label={`Allow: ${label}`} onClick={() => answer(request.requestId, { action: 'accept' })}>
        Allow
      </button>
      {forThread && (
        <button
          type="button"
          className="button button-secondary"
          data-testid="inbox-accept-thread"
          aria-label={`Allow ${label} in thread ‘${threadTitle}’ until Wheelhouse restarts`}
          onClick={() => answer(request.requestId, { action: 'accept', _meta: { [MCP_TOOL_APPROVAL_META.persistKey]: MCP_TOOL_APPROVAL_META.persistSession } })}
        >
          Allow for this thread
        </button>
      )}
      <button type="button" className="button button-secondary" data-testid="inbox-decline" aria-label={`Decline: ${label}`} onClick={() => answer(request.requestId, { action: 'decline' })}>
        Decline
      </button>
    </div>
  );
}

function OtherDetails({ request }: { readonly request: OtherRequest }) {
  return (
    <div className="inbox-request-details">
      <p className="inbox-request-what">
        The agent asks: <code>{request.method}</code>
      </p>
      <pre className="inbox-raw" tabIndex={0} aria-label={`Details of ${request.method}`}>
        {JSON.stringify(request.params, null, 2)}
      </pre>
    </div>
  );
}

function OtherDecisions({ request }: { readonly request: OtherRequest }) {
  const answer = useApprovalsStore((s) => s.answerOther);
  return (
    <div className="approval-actions">
      <button type="button" className="button button-primary" data-testid="inbox-accept" aria-label={`Accept: ${request.method}`} onClick={() => answer(request.requestId, true)}>
        Accept
      </button>
      <button type="button" className="button button-secondary" data-testid="inbox-decline" aria-label={`Decline: ${request.method}`} onClick={() => answer(request.requestId, false)}>
        Decline
      </button>
    </div>
  );
}
