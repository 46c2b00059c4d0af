import { MessagesSquare } from 'lucide-react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { formatDateTime } from '../common/relative-time.js';

/** What a thread with no messages shows: a calm placeholder saying what will appear here. */
export function ConversationEmpty({ thread }: { readonly thread: Thread }) {
  return (
    <div className="conversation-body">
      <div className="conversation-empty">
        <div className="conversation-empty-art" aria-hidden="true">
          <span className="bubble bubble-left" />
          <span className="bubble bubble-right" />
          <span className="bubble-icon">
            <MessagesSquare size={22} strokeWidth={1.6} />
          </span>
        </div>
        <h2 className="conversation-empty-title">No messages yet</h2>
        <p className="conversation-empty-text">
          Messages, tool calls and approvals for this thread will appear here.
        </p>
        <p className="conversation-empty-stamp">Created {formatDateTime(thread.createdAt)}</p>
      </div>
    </div>
  );
}
