import { ArrowUp, CircleAlert, Square, X } from 'lucide-react';
import { useEffect, useLayoutEffect, useRef, useState, type ClipboardEvent, type KeyboardEvent } from 'react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useConnectionStore, useConversationStore, useGoalStore, useQueueStore, useSetupStore } from '../../services/services.js';
import { useDraftStore } from '../../stores/draft-store.js';
import { ModelPicker } from './model-picker.js';
import { QueuePanel } from './queue-panel.js';

const MAX_HEIGHT = 240;
/**
 * Pastes above this size are inserted by setting the value, not by the browser's
 * editing command: Chromium inserts a long multi-line text line by line (a
 * 2,600-line log took over a minute), while setting the value takes milliseconds.
 */
const LARGE_PASTE_CHARS = 16 * 1024;

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
  const budgetSpent = useGoalStore((s) => s.goals[thread.id]?.status === 'budgetLimited');
  const [sending, setSending] = useState(false);
  /** Set when Enter could not send (disconnected); cleared when the link is back or the text changes. */
  const [blockedEnter, setBlockedEnter] = useState(false);
  /** Enter (or Alt+Enter) pressed while the conversation was still loading: done as soon as it has loaded. */
  const [whenLoaded, setWhenLoaded] = useState<'send' | 'queue' | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const disabled = !connected || thread.archived || !ready || budgetSpent;
  const canSend = draft.trim().length > 0 && !sending && !disabled;

  useLayoutEffect(() => {
    if (connected) setBlockedEnter(false);
  }, [connected]);

  useLayoutEffect(() => {
    const area = input.current;
    if (!area) return;
    area.style.height = 'auto';
    area.style.height = `${Math.min(area.scrollHeight, MAX_HEIGHT)}px`;
  }, [draft]);

  const focusRequest = useDraftStore((s) => s.focusRequest);
  useLayoutEffect(() => {
    const area = input.current;
    if (!area) return;
    area.focus();
    // A filled-in suggestion is edited from its end.
    area.setSelectionRange(area.value.length, area.value.length);
  }, [thread.id, focusRequest]);

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

  /** Where the caret goes after a large paste, applied once React has rendered the new value. */
  const caretAfterPaste = useRef<number | null>(null);
  useLayoutEffect(() => {
    const area = input.current;
    const caret = caretAfterPaste.current;
    if (!area || caret === null) return;
    caretAfterPaste.current = null;
    area.setSelectionRange(caret, caret);
  }, [draft]);

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const text = event.clipboardData.getData('text/plain');
    if (text.length < LARGE_PASTE_CHARS) return;
    event.preventDefault();
    const area = event.currentTarget;
    const next = area.value.slice(0, area.selectionStart) + text + area.value.slice(area.selectionEnd);
    caretAfterPaste.current = area.selectionStart + text.length;
    setDraft(thread.id, next);
  };

  useLayoutEffect(() => setWhenLoaded(null), [thread.id]);
  useEffect(() => {
    if (whenLoaded === null || !ready) return;
    setWhenLoaded(null);
    void (whenLoaded === 'queue' ? queue() : submit());
    // Only the conversation becoming ready sends; submit and queue are this render's.
  }, [whenLoaded, ready]);

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      if (!connected && draft.trim().length > 0) setBlockedEnter(true);
      // A new thread's conversation may still be loading: the message goes once it has, not never.
      if (connected && !ready && draft.trim().length > 0) {
        setWhenLoaded(event.altKey ? 'queue' : 'send');
        return;
      }
      void (event.altKey ? queue() : submit());
    }
  };

  const placeholder = thread.archived
    ? 'This thread is archived. Unarchive it to continue.'
    : budgetSpent
      ? 'The goal’s token budget is used up. Raise the budget or clear the goal (above) to continue.'
      : running
        ? 'Add to the running turn…'
        : 'Ask the agent to do something…';
  const hint = !connected
    ? 'Not connected · your message stays here until the connection is back'
    : budgetSpent
      ? 'Sending is paused: the goal’s budget is used up'
      : running
        ? 'Enter adds to the running turn · Alt+Enter queues it for after'
        : 'Enter to send · Alt+Enter to queue · Shift+Enter for a new line';

  return (
    <div className="composer-dock">
      <SendError />
      {blockedEnter && !connected && (
        <p className="composer-notice" data-testid="composer-offline-notice" role="status">
          Can’t send while disconnected from the runtime. Your message is kept and can be sent once the connection is back.
        </p>
      )}
      <div className="composer" data-running={running || undefined} data-disabled={disabled || undefined}>
        <textarea
          ref={input}
          className="composer-input"
          data-testid="composer-input"
          aria-label="Message"
          rows={1}
          placeholder={placeholder}
          value={draft}
          disabled={thread.archived || budgetSpent}
          aria-describedby={`composer-hint-${thread.id}`}
          onChange={(event) => setDraft(thread.id, event.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
        <div className="composer-bar">
          <ModelPicker thread={thread} />
          <span className="composer-hint" id={`composer-hint-${thread.id}`} data-testid="composer-hint">
            {hint}
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

/** Why the last message was not sent, once, above the composer, with the action that helps. */
function SendError() {
  const error = useConversationStore((s) => s.sendError);
  const dismiss = useConversationStore((s) => s.dismissSendError);
  const threadId = useConversationStore((s) => s.threadId);
  const openGoalEditor = useGoalStore((s) => s.openEditor);
  const retryConnection = useConnectionStore((s) => s.retry);
  const openSettings = useSetupStore((s) => s.openSettings);
  if (!error) return null;
  return (
    <div className="composer-error" data-testid="send-error" role="alert">
      <CircleAlert size={15} strokeWidth={2} className="composer-error-icon" aria-hidden="true" />
      <p className="composer-error-text">{error.message}</p>
      {error.action === 'raiseBudget' && threadId && (
        <button type="button" className="button button-secondary button-small" onClick={() => openGoalEditor(threadId)}>
          Raise budget
        </button>
      )}
      {error.action === 'openSettings' && (
        <button type="button" className="button button-secondary button-small" onClick={() => openSettings()}>
          Open Settings
        </button>
      )}
      {error.action === 'reconnect' && (
        <button type="button" className="button button-secondary button-small" onClick={retryConnection}>
          Reconnect now
        </button>
      )}
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={dismiss}>
        <X size={14} strokeWidth={2} aria-hidden="true" />
      </button>
    </div>
  );
}
