import { MessagesSquare, PencilLine } from 'lucide-react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { folderName } from '../../format/thread-labels.js';
import { useDraftStore } from '../../stores/draft-store.js';

const SUGGESTIONS = [
  'Give me a tour of this project and how it is organised.',
  'Find the TODO and FIXME comments and group them by area.',
  'Which parts of the code have no tests?',
] as const;

/** A thread with no messages: what the agent can do here, with a few first questions to start from. */
export function ConversationEmpty({ thread }: { readonly thread: Thread }) {
  const setDraft = useDraftStore((s) => s.setDraft);
  const requestFocus = useDraftStore((s) => s.requestFocus);
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
        <h2 className="conversation-empty-title">What should we work on in {folderName(thread.cwd)}?</h2>
        <p className="conversation-empty-text">
          The agent can read, list and search the files in this folder. Its replies, the tools it uses and what they
          cost appear here.
        </p>
        {!thread.archived && (
          <div className="suggestions" role="group" aria-labelledby="suggestions-label">
            <p className="suggestions-label" id="suggestions-label">
              Or start from one of these. It goes into the message box for you to edit and send.
            </p>
            {SUGGESTIONS.map((text) => (
              <button
                key={text}
                type="button"
                className="suggestion"
                data-testid="suggestion"
                onClick={() => {
                  setDraft(thread.id, text);
                  requestFocus();
                }}
              >
                <PencilLine size={14} strokeWidth={1.9} className="suggestion-icon" aria-hidden="true" />
                {text}
              </button>
            ))}
          </div>
        )}
      </div>
    </div>
  );
}
