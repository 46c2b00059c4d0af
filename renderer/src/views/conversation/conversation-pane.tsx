import { ShipWheel, SquarePen } from 'lucide-react';
import { useConnectionStore, useThreadsStore } from '../../services.js';
import { selectSelectedThread } from '../../stores/thread-selectors.js';
import { ConversationEmpty } from './conversation-empty.js';
import { ConversationHeader } from './conversation-header.js';
import './conversation.css';

/** The right side: the selected thread's header and conversation, or a welcome when none is selected. */
export function ConversationPane() {
  const thread = useThreadsStore(selectSelectedThread);
  const newThread = useThreadsStore((s) => s.newThread);
  const creating = useThreadsStore((s) => s.creating);
  const connected = useConnectionStore((s) => s.status === 'connected');

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
          <button type="button" className="button button-primary" onClick={() => void newThread()} disabled={creating || !connected}>
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
      <ConversationEmpty thread={thread} />
    </section>
  );
}
