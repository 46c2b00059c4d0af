import { MCP_TOOL_APPROVAL_META } from '../../../../shared/protocol/methods/approvals.js';
import { formatArguments } from '../../format/tool-calls.js';
import { useApprovalsStore } from '../../services/services.js';
import type { McpToolApproval } from '../../stores/approvals-store.js';
import { AnswerFailure } from '../approvals/answer-failure.js';
import { ApprovalCardFrame } from './approval-card-frame.js';

type Choice = 'accept' | 'session' | 'always' | 'decline';

/** Keys that answer a focused card (the same letters as a command's card). */
const SHORTCUTS: Readonly<Record<string, Choice>> = { a: 'accept', t: 'session', r: 'always', d: 'decline' };

const metaOf = (approval: McpToolApproval): Record<string, unknown> => {
  const meta = approval.params._meta;
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
};

/** Which remembered choices the runtime offers (Codex's `_meta.persist`: a string or a list). */
function offeredPersistence(meta: Record<string, unknown>): readonly string[] {
  const persist = meta[MCP_TOOL_APPROVAL_META.persistKey];
  return typeof persist === 'string' ? [persist] : Array.isArray(persist) ? persist.filter((p): p is string => typeof p === 'string') : [];
}

/**
 * "Allow the <server> MCP server to run tool …?" with the call's arguments and
 * the person's choices; answered once, here or in another window. Small and
 * self-contained so a list of waiting approvals can show it too.
 */
export function McpApprovalCard({ approval }: { readonly approval: McpToolApproval }) {
  const answer = useApprovalsStore((s) => s.answerMcpTool);
  const meta = metaOf(approval);
  const persistence = offeredPersistence(meta);
  const tool = typeof meta[MCP_TOOL_APPROVAL_META.toolTitleKey] === 'string' ? (meta[MCP_TOOL_APPROVAL_META.toolTitleKey] as string) : null;
  const description = typeof meta[MCP_TOOL_APPROVAL_META.toolDescriptionKey] === 'string' ? (meta[MCP_TOOL_APPROVAL_META.toolDescriptionKey] as string) : null;
  const toolParams = meta[MCP_TOOL_APPROVAL_META.toolParamsKey];
  const message = 'message' in approval.params ? approval.params.message : `Allow ${approval.params.serverName} to run a tool?`;
  const choose = (choice: Choice) => {
    if (choice === 'decline') return answer(approval.requestId, { action: 'decline' });
    if (choice === 'accept') return answer(approval.requestId, { action: 'accept' });
    const persist = choice === 'session' ? MCP_TOOL_APPROVAL_META.persistSession : MCP_TOOL_APPROVAL_META.persistAlways;
    if (persistence.includes(persist)) answer(approval.requestId, { action: 'accept', _meta: { [MCP_TOOL_APPROVAL_META.persistKey]: persist } });
  };
  return (
    <ApprovalCardFrame label={message} title={message} testId="mcp-approval-card" shortcuts={SHORTCUTS} onChoose={choose}>
      {(tool || description) && (
        <p className="approval-reason">
          {tool && <strong>{tool}. </strong>}
          {description}
        </p>
      )}
      {toolParams !== undefined && <pre className="tool-call-pre">{formatArguments(toolParams)}</pre>}
      <div className="approval-actions">
        <button type="button" className="button button-primary" data-testid="mcp-approval-accept" onClick={() => choose('accept')}>
          Allow <kbd>A</kbd>
        </button>
        {persistence.includes(MCP_TOOL_APPROVAL_META.persistSession) && (
          <button
            type="button"
            className="button button-secondary"
            data-testid="mcp-approval-accept-thread"
            title="This tool runs without asking in this thread until Wheelhouse restarts"
            onClick={() => choose('session')}
          >
            Allow for this thread <kbd>T</kbd>
          </button>
        )}
        {persistence.includes(MCP_TOOL_APPROVAL_META.persistAlways) && (
          <button
            type="button"
            className="button button-secondary"
            data-testid="mcp-approval-accept-always"
            title={`Saves approval_mode = "approve" for this tool of ${approval.params.serverName} in config.toml`}
            onClick={() => choose('always')}
          >
            Always allow this tool <kbd>R</kbd>
          </button>
        )}
        <button type="button" className="button button-secondary" data-testid="mcp-approval-decline" onClick={() => choose('decline')}>
          Decline <kbd>D</kbd>
        </button>
      </div>
      <AnswerFailure requestId={approval.requestId} />
    </ApprovalCardFrame>
  );
}
