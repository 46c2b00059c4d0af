import { Check, ChevronRight, Link2, LoaderCircle, Plug, ShieldQuestion, X } from 'lucide-react';
import { useState } from 'react';
import { useApprovalsStore } from '../../services/services.js';
import { McpApprovalCard } from './mcp-approval-card.js';
import type { ConversationItem } from '../../stores/conversation-model.js';
import { formatArguments } from '../../format/tool-calls.js';
import { formatDuration } from '../../format/usage.js';

type McpToolCall = Extract<ConversationItem, { type: 'mcpToolCall' }>;
type Block = Record<string, unknown>;

/** A call of an MCP server's tool: server · tool, status; expands to the arguments and the result as the server sent it. */
export function McpToolCallCard({ item }: { readonly item: McpToolCall }) {
  const [open, setOpen] = useState(false);
  const approval = useApprovalsStore((s) => s.pending.find((p) => p.kind === 'mcpTool' && p.itemId === item.id));
  const status = approval ? 'waiting' : item.status;
  return (
    <div className="tool-call" data-testid="mcp-tool-call" data-status={status} data-open={open || undefined}>
      <button type="button" className="tool-call-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Plug size={14} strokeWidth={1.9} className="tool-call-icon" aria-hidden="true" />
        <span className="tool-call-title">{item.tool}</span>
        <span className="tool-call-subject">{item.server}</span>
        <span className="tool-call-status">
          {item.durationMs !== null && status !== 'inProgress' && (
            <span className="tool-call-duration">{formatDuration(item.durationMs)}</span>
          )}
          {status === 'waiting' && (
            <span className="tool-call-waiting">
              <ShieldQuestion size={14} strokeWidth={2} aria-hidden="true" /> Needs approval
            </span>
          )}
          {status === 'inProgress' && <LoaderCircle size={14} strokeWidth={2} className="spin" aria-label="Running" role="img" />}
          {status === 'completed' && <Check size={14} strokeWidth={2.4} className="tool-call-ok" aria-label="Done" role="img" />}
          {status === 'failed' && <X size={14} strokeWidth={2.4} className="tool-call-failed" aria-label="Failed" role="img" />}
        </span>
        <ChevronRight size={14} strokeWidth={2} className="tool-call-chevron" aria-hidden="true" />
      </button>
      {approval?.kind === 'mcpTool' && <McpApprovalCard approval={approval} />}
      {open && (
        <div className="tool-call-body">
          <div className="tool-call-section">
            <span className="tool-call-section-label">{`${item.server} · ${item.tool} · arguments`}</span>
            <pre className="tool-call-pre">{formatArguments(item.arguments)}</pre>
          </div>
          {item.error && (
            <div className="tool-call-section">
              <span className="tool-call-section-label">Error</span>
              <pre className="tool-call-pre tool-call-output">{item.error.message}</pre>
            </div>
          )}
          {item.result && (
            <div className="tool-call-section">
              <span className="tool-call-section-label">Result</span>
              {item.result.content.map((block, index) => (
                <ContentBlock key={index} block={(block ?? {}) as Block} />
              ))}
              {item.result.structuredContent !== null && item.result.structuredContent !== undefined && (
                <pre className="tool-call-pre" data-testid="mcp-structured">{JSON.stringify(item.result.structuredContent, null, 2)}</pre>
              )}
            </div>
          )}
          {!item.result && !item.error && <pre className="tool-call-pre tool-call-output">Running…</pre>}
        </div>
      )}
    </div>
  );
}

const str = (block: Block, key: string) => (typeof block[key] === 'string' ? (block[key] as string) : '');

/** One MCP content block: text, an image, a resource link or an embedded resource. */
function ContentBlock({ block }: { readonly block: Block }) {
  switch (block.type) {
    case 'text':
      return <pre className="tool-call-pre tool-call-output">{str(block, 'text')}</pre>;
    case 'image': {
      const mime = str(block, 'mimeType');
      // Only raster types are drawn; the data never leaves the page.
      if (!/^image\/(png|jpeg|gif|webp)$/.test(mime)) return <pre className="tool-call-pre">{`[image ${mime}]`}</pre>;
      return <img className="mcp-image" alt="Tool result" src={`data:${mime};base64,${str(block, 'data')}`} />;
    }
    case 'resource_link':
      return (
        <div className="mcp-resource-link" data-testid="mcp-resource-link">
          <Link2 size={13} strokeWidth={1.9} aria-hidden="true" />
          <span className="mcp-resource-name">{str(block, 'name') || str(block, 'uri')}</span>
          <span className="mcp-resource-uri">{str(block, 'uri')}</span>
        </div>
      );
    case 'resource': {
      const resource = (block.resource ?? {}) as Block;
      return <pre className="tool-call-pre">{`${str(resource, 'uri')}\n${str(resource, 'text') || `[${str(resource, 'mimeType') || 'binary'}]`}`}</pre>;
    }
    default:
      return <pre className="tool-call-pre">{JSON.stringify(block, null, 2)}</pre>;
  }
}
