import { CircleAlert, ShipWheel, SquarePen } from 'lucide-react';
import { useEffect } from 'react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useApprovalsStore, useConnectionStore, useConversationStore, useThreadsStore } from '../../services/services.js';
import { ApprovalCard, OtherRequestCard } from './approval-card.js';
import { McpApprovalCard } from './mcp-approval-card.js';
import { SessionGrants } from './session-grants.js';
import { selectSelectedThread } from '../../stores/thread-selectors.js';
import { Composer } from './composer.js';
import { ConversationEmpty } from './conversation-empty.js';
import { ConversationHeader } from './conversation-header.js';
import { GoalBanner } from './goal-editor.js';
import { MessageList } from './message-list.js';
import { TerminalPanel } from '../terminal/terminal-panel.js';
import { ChangesPanel } from '../projects/changes-panel.js';
import { openNewThread } from '../../services/services.js';
import { useLive } from '../connection/use-live.js';
import './conversation.css';
import './messages.css';
import './markdown.css';
import './composer.css';
import './goal.css';
import './commands.css';

/** The right side: the selected thread's header, conversation and composer, or a welcome when none is selected. */
export function ConversationPane() {
  const thread = useThreadsStore(selectSelectedThread);
  const selectedId = useThreadsStore((s) => s.selectedId);
  const creating = useThreadsStore((s) => s.creating);
  const connected = useConnectionStore((s) => s.status === 'connected');
  const live = useLive();
  const open = useConversationStore((s) => s.open);

  useEffect(() => {
    if (connected) void open(selectedId);
  }, [connected, open, selectedId]);

  if (!thread) {
    return (
      <section className="conversation conversation-welcome" data-testid="conversation-pane" aria-label="Conversation">
        <div className="welcome">
          <div className="welcome-mark" aria-hidden="true">
            <ShipWheel size={30} strokeWidth={1.5} />
          </div>
          <h1 className="welcome-title">Welcome to Wheelhouse</h1>
          <p className="welcome-text">
            Pick a thread on the left, or start a new one to work with an agent on a project.
          </p>
          <button type="button" className="button button-primary" onClick={openNewThread} disabled={creating || !live}>
            <SquarePen size={15} strokeWidth={2} aria-hidden="true" />
            New thread
          </button>
        </div>
      </section>
    );
  }

  return (
    <section
      className="conversation"
      data-testid="conversation-pane"
      data-thread-id={thread.id}
      aria-label="Conversation"
    >
      <ConversationHeader thread={thread} />
      {/* Below the header: the Changes panel covers this part only, so the header's buttons stay in reach. */}
      <div className="conversation-stage">
        <ConversationBody thread={thread} />
        <GoalBanner threadId={thread.id} />
        <OtherRequests threadId={thread.id} />
        <SessionGrants threadId={thread.id} />
        <Composer thread={thread} />
        <TerminalPanel thread={thread} />
        <ChangesPanel threadId={thread.id} />
      </div>
    </section>
  );
}

function ConversationBody({ thread }: { readonly thread: Thread }) {
  const load = useConversationStore((s) => (s.threadId === thread.id ? s.load : 'loading'));
  const loadError = useConversationStore((s) => s.loadError);
  const empty = useConversationStore((s) => s.rows.length === 0);
  const open = useConversationStore((s) => s.open);

  if (load === 'failed') {
    return (
      <div className="conversation-body">
        <div className="conversation-empty" role="alert">
          <CircleAlert size={22} strokeWidth={1.8} className="conversation-load-error-icon" aria-hidden="true" />
          <h2 className="conversation-empty-title">Couldn’t open this thread</h2>
          <p className="conversation-empty-text">{loadError}</p>
          <button type="button" className="button button-secondary" onClick={() => void open(thread.id)}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  if (empty) {
    return load === 'ready' ? <ConversationEmpty thread={thread} /> : <div className="conversation-body" aria-busy="true" />;
  }
  return <MessageList key={thread.id} />;
}

/**
 * Requests of a kind this window has no card for (this thread's, or of no thread): shown raw, never left
 * waiting unseen. A command or MCP approval normally shows on its item in the conversation (thread/resume
 * includes the running turn's waiting items); should its item not be in the loaded conversation (still
 * loading, or a request whose item the thread does not hold), its card stands here until the item shows up.
 */
function OtherRequests({ threadId }: { readonly threadId: string }) {
  const pending = useApprovalsStore((s) => s.pending);
  // Until the thread is loaded every item is "missing": the cards would flash here before moving to their place.
  const items = useConversationStore((s) => (s.threadId === threadId && s.load === 'ready' ? s.data.items : null));
  useConversationStore((s) => s.revision);
  const others = pending.filter((request) => request.kind === 'other' && (request.threadId === null || request.threadId === threadId));
  const unseen = pending.filter((request) => request.kind === 'command' && request.threadId === threadId && items !== null && !items.has(request.params.itemId));
  const unseenMcp = pending.filter((request) => request.kind === 'mcpTool' && request.threadId === threadId && items !== null && !items.has(request.itemId));
  if (others.length === 0 && unseen.length === 0 && unseenMcp.length === 0) return null;
  return (
    <div className="pending-requests">
      {unseen.map(
        (request) =>
          request.kind === 'command' && (
            <div key={request.requestId} className="command-card" data-testid="command-card" data-status="waiting" data-open>
              <div className="command-head">
                <code className="command-text" data-testid="command-text">
                  {request.params.command ?? 'a command'}
                </code>
              </div>
              <ApprovalCard approval={request} />
            </div>
          ),
      )}
      {unseenMcp.map((request) => request.kind === 'mcpTool' && <McpApprovalCard key={request.requestId} approval={request} />)}
      {others.map((request) => request.kind === 'other' && <OtherRequestCard key={request.requestId} request={request} />)}
    </div>
  );
}
