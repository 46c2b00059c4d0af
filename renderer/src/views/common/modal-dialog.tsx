import { useRef, type ReactNode } from 'react';
import { useFocusTrap } from './use-focus-trap.js';

/**
 * A modal dialog's frame: the backdrop (a click on it closes), the dialog with Tab kept
 * inside it, and Escape to close. The content brings its own title (`titleId` names it).
 */
export function ModalDialog({
  className,
  testId,
  titleId,
  onClose,
  children,
}: {
  readonly className: string;
  readonly testId: string;
  readonly titleId: string;
  readonly onClose: () => void;
  readonly children: ReactNode;
}) {
  const dialog = useRef<HTMLDivElement>(null);
  useFocusTrap(dialog);
  return (
    <div className="dialog-backdrop" onPointerDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={dialog}
        className={`dialog ${className}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid={testId}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            onClose();
          }
        }}
      >
        {children}
      </div>
    </div>
  );
}
