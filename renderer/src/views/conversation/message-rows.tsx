import { Bot, Brain, ChevronRight, GitFork } from 'lucide-react';
import { memo, useState } from 'react';
import { agentJobInstruction } from '../../../../shared/agent-job-prompts.js';
import { useThreadsStore } from '../../services/services.js';
import type { ConversationItem } from '../../stores/conversation-model.js';
import { foldLongText } from '../../format/long-text.js';
import { threadTitle } from '../../format/thread-labels.js';
import { MarkdownView } from './markdown-view.js';
import { CommandCard } from './command-card.js';
import { FileChangeCard } from './file-change-card.js';
import { McpToolCallCard } from './mcp-tool-call-card.js';
import { ToolCallCard } from './tool-call-card.js';
import { ReviewResult, ReviewStarted } from '../review/review-card.js';

type Item<T extends ConversationItem['type']> = Extract<ConversationItem, { type: T }>;

/** One item of the conversation, drawn by its kind; re-renders only when the item changes. */
export const ItemRow = memo(function ItemRow({ item }: { readonly item: ConversationItem }) {
  switch (item.type) {
    case 'userMessage':
      return <UserMessage item={item} />;
    case 'agentMessage':
      return <AgentMessage item={item} />;
    case 'reasoning':
      return <Reasoning item={item} />;
    case 'dynamicToolCall':
      return <ToolCallCard item={item} />;
    case 'commandExecution':
      return <CommandCard item={item} />;
    case 'fileChange':
      return <FileChangeCard item={item} />;
    case 'mcpToolCall':
      return <McpToolCallCard item={item} />;
    case 'enteredReviewMode':
      return <ReviewStarted item={item} />;
    case 'exitedReviewMode':
      return <ReviewResult item={item} />;
    case 'forkMarker':
      return <ForkMarker item={item} />;
    default: {
      const unknown: never = item;
      return unknown;
    }
  }
});

/** The person's message; a long one shows its first lines with "Show all" (only those are in the DOM). */
function UserMessage({ item }: { readonly item: Item<'userMessage'> }) {
  const text = item.content.map((c) => c.text).join('\n');
  const instruction = agentJobInstruction(text);
  if (instruction) return <JobInstruction kind={instruction} text={text} />;
  return <PersonMessage text={text} />;
}

/**
 * What Wheelhouse told the agent of a job (not the person's words): one quiet
 * line, the text itself on demand.
 */
function JobInstruction({ kind, text }: { readonly kind: 'start' | 'continue'; readonly text: string }) {
  return (
    <details className="message-instruction" data-testid="job-instruction">
      <summary>
        <Bot size={14} aria-hidden="true" />
        {kind === 'start' ? 'Wheelhouse started the job: work toward its goal' : 'Wheelhouse asked the agent to go on toward the goal'}
        <span className="message-instruction-more">What the agent was told</span>
      </summary>
      <p className="message-instruction-text">{text}</p>
    </details>
  );
}

function PersonMessage({ text }: { readonly text: string }) {
  const folded = foldLongText(text);
  const [expanded, setExpanded] = useState(false);
  return (
    <div className="message-user" data-testid="user-message" data-folded={(folded && !expanded) || undefined}>
      <div className="message-user-bubble">
        {folded && !expanded ? `${folded.head}…` : text}
        {folded && (
          <button
            type="button"
            className="button-link message-user-toggle"
            data-testid="user-message-toggle"
            aria-expanded={expanded}
            onClick={() => setExpanded(!expanded)}
          >
            {expanded ? 'Show less' : `Show all (${folded.totalLines.toLocaleString('en-US')} lines, ${formatSize(text.length)})`}
          </button>
        )}
      </div>
    </div>
  );
}

function formatSize(chars: number): string {
  return chars < 10_000 ? `${chars.toLocaleString('en-US')} characters` : `${Math.round(chars / 1000).toLocaleString('en-US')}k characters`;
}

function AgentMessage({ item }: { readonly item: Item<'agentMessage'> }) {
  return (
    <div className="message-agent" data-testid="agent-message" data-streaming={item.streaming || undefined}>
      <MarkdownView text={item.text} streaming={item.streaming} />
      {item.incomplete && !item.streaming && (
        <div className="message-incomplete" data-testid="message-incomplete">
          The reply was cut off here.
        </div>
      )}
    </div>
  );
}

/** The model's reasoning: open while it streams, folded away once the reply is there (unless opened). */
function Reasoning({ item }: { readonly item: Item<'reasoning'> }) {
  const [chosen, setChosen] = useState<boolean | null>(null);
  const open = chosen ?? item.streaming;
  const text = [...item.summary, ...item.content].join('\n\n').trim();
  const words = text.length === 0 ? 0 : text.split(/\s+/).length;
  return (
    <div className="reasoning" data-testid="reasoning" data-open={open || undefined} data-streaming={item.streaming || undefined}>
      <button type="button" className="reasoning-toggle" aria-expanded={open} onClick={() => setChosen(!open)}>
        <Brain size={14} strokeWidth={1.9} aria-hidden="true" />
        <span className="reasoning-label">{item.streaming ? 'Thinking…' : 'Reasoning'}</span>
        {!item.streaming && words > 0 && <span className="reasoning-meta">{words} words</span>}
        <ChevronRight size={14} strokeWidth={2} className="reasoning-chevron" aria-hidden="true" />
      </button>
      {open && text.length > 0 && <div className="reasoning-text">{text}</div>}
    </div>
  );
}

/** Where a fork begins: everything above was copied from the parent thread, which the label opens. */
function ForkMarker({ item }: { readonly item: Item<'forkMarker'> }) {
  const parent = useThreadsStore((s) => s.threads[item.fromThreadId]);
  const select = useThreadsStore((s) => s.select);
  const name = parent ? threadTitle(parent) : item.fromThreadName;
  return (
    <div className="fork-marker" data-testid="fork-marker">
      <span className="fork-marker-line" aria-hidden="true" />
      <span className="fork-marker-label">
        <GitFork size={13} strokeWidth={1.9} aria-hidden="true" />
        Forked from{' '}
        {parent ? (
          <button type="button" className="fork-marker-link" onClick={() => select(parent.id)}>
            {name}
          </button>
        ) : (
          (name ?? 'another thread')
        )}
      </span>
      <span className="fork-marker-line" aria-hidden="true" />
    </div>
  );
}
