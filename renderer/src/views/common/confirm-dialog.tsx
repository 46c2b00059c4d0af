import { useEffect, useId, useRef } from 'react';
import { useConfirmStore } from '../../stores/confirm-store.js';
import { useFocusTrap } from './use-focus-trap.js';

/** The confirmation dialog, when one is asked: Escape or Cancel says no, the action button says yes. */
export function ConfirmDialog() {
  const request = useConfirmStore((s) => s.request);
  const confirm = useRef<HTMLButtonElement>(null);
  const dialog = useRef<HTMLDivElement>(null);
  useFocusTrap(dialog, request !== null);
  const titleId = useId();
  const messageId = useId();

  useEffect(() => {
    if (request) confirm.current?.focus();
  }, [request]);

  if (!request) return null;
  return (
    <div className="dialog-backdrop" onPointerDown={(e) => e.target === e.currentTarget && request.answer(false)}>
      <div
        ref={dialog}
        className="dialog dialog-small"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={messageId}
        data-testid="confirm-dialog"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            request.answer(false);
          }
        }}
      >
        <h2 id={titleId} className="dialog-title">
          {request.title}
        </h2>
        <p id={messageId} className="dialog-text">
          {request.message}
        </p>
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" data-testid="confirm-dismiss" onClick={() => request.answer(false)}>
            {request.dismissLabel ?? 'Cancel'}
          </button>
          <button
            ref={confirm}
            type="button"
            className={request.danger ? 'button button-danger' : 'button button-primary'}
            data-testid="confirm-action"
            onClick={() => request.answer(true)}
          >
            {request.confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
