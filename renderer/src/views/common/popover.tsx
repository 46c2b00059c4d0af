import { useEffect, useLayoutEffect, useRef, type ReactNode, type RefObject } from 'react';
import { usePopoverPosition, type PopoverAlign } from './use-popover-position.js';

export interface PopoverProps {
  readonly open: boolean;
  readonly anchor: RefObject<HTMLElement | null>;
  readonly onClose: () => void;
  readonly label: string;
  readonly className?: string;
  readonly testId?: string;
  readonly align?: PopoverAlign;
  readonly children: ReactNode;
}

/**
 * A floating panel under (or above) its anchor, for small editors: Escape and
 * a click outside close it, and focus moves into it when it opens (to the
 * element marked `data-autofocus`, else the first field or button).
 */
export function Popover({ open, anchor, onClose, label, className, testId, align, children }: PopoverProps) {
  const panel = useRef<HTMLDivElement>(null);
  const position = usePopoverPosition(open, anchor, panel, align);
  // Callers pass a fresh onClose each render; the listeners read the latest without re-running the effects.
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  // Focus moves in only when the panel opens, not on every re-render of its owner.
  useLayoutEffect(() => {
    if (!open) return;
    const first = panel.current?.querySelector<HTMLElement>('[data-autofocus]') ?? panel.current?.querySelector<HTMLElement>('textarea, input, button');
    first?.focus();
  }, [open]);

  useLayoutEffect(() => {
    if (!open) return;
    const onClose = () => onCloseRef.current();
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (panel.current?.contains(target) || anchor.current?.contains(target)) return;
      // Clicks inside another layer (a dialog opened from the panel) leave it open.
      if ((target as Element).closest?.('.dialog-backdrop')) return;
      onClose();
    };
    const onResize = () => onClose();
    document.addEventListener('pointerdown', onPointerDown, true);
    window.addEventListener('resize', onResize);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown, true);
      window.removeEventListener('resize', onResize);
    };
  }, [open, anchor]);

  if (!open) return null;
  return (
    <div
      ref={panel}
      className={`popover ${className ?? ''}`}
      role="dialog"
      aria-label={label}
      data-testid={testId}
      style={position}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          onClose();
          anchor.current?.focus();
        }
      }}
    >
      {children}
    </div>
  );
}
