import { X } from 'lucide-react';
import { useId, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';

/**
 * The frame of the dialogs that describe a job (New job, a schedule's job): a form with a
 * title and a close button, the fields, Cancel and the submit button. Escape and a click
 * beside it close it.
 */
export function JobDialogFrame({
  title,
  testId,
  className,
  submitLabel,
  submitTestId,
  busy,
  onSubmit,
  onClose,
  children,
}: {
  readonly title: string;
  readonly testId: string;
  /** Added to the dialog's classes (its own layout). */
  readonly className?: string;
  readonly submitLabel: string;
  readonly submitTestId: string;
  /** Saving: the submit button waits. */
  readonly busy: boolean;
  readonly onSubmit: (event: FormEvent) => void;
  readonly onClose: () => void;
  readonly children: ReactNode;
}) {
  const titleId = useId();
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && !event.defaultPrevented) onClose();
  };
  return (
    <div className="dialog-backdrop" onPointerDown={(e) => e.target === e.currentTarget && onClose()}>
      <form className={`dialog new-job-dialog${className ? ` ${className}` : ''}`} role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid={testId} onKeyDown={onKeyDown} onSubmit={onSubmit}>
        <div className="dialog-head">
          <h2 id={titleId} className="dialog-title">
            {title}
          </h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
            <X size={15} strokeWidth={2} aria-hidden="true" />
          </button>
        </div>
        <div className="new-job-body">{children}</div>
        <div className="dialog-actions">
          <button type="button" className="button-ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" data-testid={submitTestId} disabled={busy}>
            {submitLabel}
          </button>
        </div>
      </form>
    </div>
  );
}
