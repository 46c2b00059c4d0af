import { useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { MAX_THREAD_NAME_LENGTH, type Thread } from '../../../../shared/protocol/thread.js';
import { useThreadsStore } from '../../services/services.js';
import { threadTitle } from '../../format/thread-labels.js';

/** Inline editor for a thread name: Enter saves, Escape cancels, a blank name is refused with a message. */
export function RenameField({ thread }: { readonly thread: Thread }) {
  const rename = useThreadsStore((s) => s.rename);
  const cancelRename = useThreadsStore((s) => s.cancelRename);
  const [draft, setDraft] = useState(thread.name ?? (thread.preview.trim() || ''));
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const settled = useRef(false);
  const errorId = `rename-error-${thread.id}`;

  useLayoutEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  const save = async () => {
    settled.current = true;
    const outcome = await rename(thread.id, draft);
    if (!outcome.ok) {
      settled.current = false;
      setError(outcome.message);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      void save();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      settled.current = true;
      cancelRename();
    }
  };

  // Leaving the field keeps a valid change and drops a blank one, like renaming a file.
  const onBlur = () => {
    if (settled.current) return;
    if (draft.trim().length === 0 || draft.trim() === (thread.name ?? '')) cancelRename();
    else void save();
  };

  return (
    <div className="thread-rename">
      <input
        ref={input}
        className="thread-rename-input"
        data-testid="rename-input"
        aria-label={`Rename ${threadTitle(thread)}`}
        aria-invalid={error !== null}
        aria-describedby={error ? errorId : undefined}
        value={draft}
        maxLength={MAX_THREAD_NAME_LENGTH}
        spellCheck={false}
        onChange={(event) => {
          setDraft(event.target.value);
          setError(null);
        }}
        onKeyDown={onKeyDown}
        onBlur={onBlur}
      />
      {error ? (
        <p id={errorId} className="thread-rename-error" role="alert" data-testid="rename-error">
          {error}
        </p>
      ) : (
        <p className="thread-rename-hint" aria-hidden="true">
          Enter to save · Esc to cancel
        </p>
      )}
    </div>
  );
}
