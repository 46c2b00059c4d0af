import { ArrowUp, Square } from 'lucide-react';
import { useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useConnectionStore, useConversationStore, useQueueStore } from '../../services.js';
import { useDraftStore } from '../../stores/draft-store.js';
import { ModelPicker } from './model-picker.js';
import { QueuePanel } from './queue-panel.js';

const MAX_HEIGHT = 240;

/**
 * Where messages are written. Enter sends, Shift+Enter adds a line, Alt+Enter
 * (or the Queue button) queues the message to start after the work before it.
 * While a turn runs the button stops it, and a message sent then steers it.
 */
export function Composer({ thread }: { readonly thread: Thread }) {
  const draft = useDraftStore((s) => s.drafts[thread.id] ?? '');
  const setDraft = useDraftStore((s) => s.setDraft);
  const send = useConversationStore((s) => s.send);
  const enqueue = useQueueStore((s) => s.add);
  const stop = useConversationStore((s) => s.stop);
  const running = useConversationStore((s) => s.activeTurnId !== null);
  const stopping = useConversationStore((s) => s.stopping);
  const ready = useConversationStore((s) => s.load === 'ready');
  const connected = useConnectionStore((s) => s.status === 'connected');
  const [sending, setSending] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);
  const disabled = !connected || thread.archived || !ready;
  const canSend = draft.trim().length > 0 && !sending && !disabled;

  useLayoutEffect(() => {
    const area = input.current;
    if (!area) return;
    area.style.height = 'auto';
    area.style.height = `${Math.min(area.scrollHeight, MAX_HEIGHT)}px`;
  }, [draft]);

  useLayoutEffect(() => {
    input.current?.focus();
  }, [thread.id]);

  const submit = async () => {
    if (!canSend) return;
    const text = draft;
    setSending(true);
    setDraft(thread.id, '');
    const sent = await send(text);
    if (!sent) setDraft(thread.id, text);
    setSending(false);
    input.current?.focus();
  };

  const queue = async () => {
    if (!canSend || thread.ephemeral) return;
    const text = draft;
    setSending(true);
    setDraft(thread.id, '');
    const queued = await enqueue(thread.id, text);
    if (!queued) setDraft(thread.id, text);
    setSending(false);
    input.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void (event.altKey ? queue() : submit());
    }
  };

  const placeholder = thread.archived
    ? 'This thread is archived. Unarchive it to continue.'
    : running
      ? 'Add to the running turn…'
      : 'Ask the agent to do something…';

  return (
    <div className="composer-dock">
      <div className="composer" data-running={running || undefined} data-disabled={disabled || undefined}>
        <textarea
          ref={input}
          className="composer-input"
          data-testid="composer-input"
          aria-label="Message"
          rows={1}
          placeholder={placeholder}
          value={draft}
          disabled={thread.archived}
          onChange={(event) => setDraft(thread.id, event.target.value)}
          onKeyDown={onKeyDown}
        />
        <div className="composer-bar">
          <ModelPicker thread={thread} />
          <span className="composer-hint" aria-hidden="true">
            {running
              ? 'Enter adds to the running turn · Alt+Enter queues it for after'
              : 'Enter to send · Alt+Enter to queue · Shift+Enter for a new line'}
          </span>
          <div className="composer-actions">
            {!thread.ephemeral && (
              <button
                type="button"
                className="composer-queue"
                data-testid="queue-button"
                title="Queue: starts after the current and earlier queued work (Alt+Enter)"
                aria-keyshortcuts="Alt+Enter"
                disabled={!canSend}
                onClick={() => void queue()}
              >
                Queue
              </button>
            )}
            {running && canSend && (
              <button
                type="button"
                className="composer-send composer-send-secondary"
                data-testid="steer-button"
                aria-label="Send to the running turn"
                title="Send now (the agent reads it before its next step)"
                onClick={() => void submit()}
              >
                <ArrowUp size={16} strokeWidth={2.2} aria-hidden="true" />
              </button>
            )}
            {running ? (
              <button
                type="button"
                className="composer-stop"
                data-testid="stop-button"
                aria-label="Stop"
                title="Stop the agent"
                disabled={stopping || !connected}
                onClick={() => void stop()}
              >
                <Square size={11} strokeWidth={0} fill="currentColor" aria-hidden="true" />
              </button>
            ) : (
              <button
                type="button"
                className="composer-send"
                data-testid="send-button"
                aria-label="Send"
                title="Send (Enter)"
                disabled={!canSend}
                onClick={() => void submit()}
              >
                <ArrowUp size={16} strokeWidth={2.2} aria-hidden="true" />
              </button>
            )}
          </div>
        </div>
      </div>
      <QueuePanel threadId={thread.id} />
    </div>
  );
}
