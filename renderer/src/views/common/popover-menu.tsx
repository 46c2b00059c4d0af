import type { LucideIcon } from 'lucide-react';
import { useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { usePopoverPosition } from './use-popover-position.js';

/** One entry of a popover menu. */
export interface MenuEntry {
  readonly testId: string;
  readonly label: string;
  readonly icon: LucideIcon;
  readonly onSelect: () => void;
  readonly disabled?: boolean;
  /** Destructive entries are drawn in the danger colour. */
  readonly danger?: boolean;
}

export interface PopoverMenuProps {
  /** Accessible name of the trigger and the menu. */
  readonly label: string;
  readonly entries: readonly (MenuEntry | 'separator')[];
  /** The trigger's contents (usually an icon). */
  readonly children: ReactNode;
  readonly triggerClassName: string;
  readonly triggerTestId: string;
  /** The trigger itself, for a caller that anchors a follow-up popover to it or moves focus back to it. */
  readonly triggerRef?: RefObject<HTMLButtonElement | null>;
  readonly triggerDisabled?: boolean;
  /** Why the trigger is disabled, or what it offers. */
  readonly triggerTitle?: string;
}

/**
 * A button that opens a menu below it: arrow keys, Home/End and Escape work
 * as in a native menu, and a click outside, a resize or scrolling whatever
 * holds the trigger closes it (other scrolling, e.g. a streaming reply, does not).
 */
export function PopoverMenu({ label, entries, children, triggerClassName, triggerTestId, triggerRef, triggerDisabled, triggerTitle }: PopoverMenuProps) {
  const [open, setOpen] = useState(false);
  const ownTrigger = useRef<HTMLButtonElement>(null);
  const trigger = triggerRef ?? ownTrigger;
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const position = usePopoverPosition(open, trigger, menu);

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) trigger.current?.focus();
  };

  useLayoutEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLButtonElement>('[role="menuitem"]:not(:disabled)')?.focus();
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !trigger.current?.contains(target)) setOpen(false);
    };
    const onResize = () => setOpen(false);
    const onScroll = (event: Event) => {
      const target = event.target;
      const anchor = trigger.current;
      if (!anchor) return;
      if (target === document || (target instanceof Node && target.contains(anchor))) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown, true);
    window.addEventListener('resize', onResize);
    document.addEventListener('scroll', onScroll, true);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown, true);
      window.removeEventListener('resize', onResize);
      document.removeEventListener('scroll', onScroll, true);
    };
  }, [open]);

  const onMenuKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = [...event.currentTarget.querySelectorAll<HTMLButtonElement>('[role="menuitem"]:not(:disabled)')];
    const index = items.indexOf(document.activeElement as HTMLButtonElement);
    const focusAt = (i: number) => items[(i + items.length) % items.length]?.focus();
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault();
        focusAt(index + 1);
        break;
      case 'ArrowUp':
        event.preventDefault();
        focusAt(index - 1);
        break;
      case 'Home':
        event.preventDefault();
        focusAt(0);
        break;
      case 'End':
        event.preventDefault();
        focusAt(items.length - 1);
        break;
      case 'Escape':
        event.preventDefault();
        close(true);
        break;
      case 'Tab':
        close(false);
        break;
    }
  };

  return (
    <>
      <button
        ref={trigger}
        type="button"
        className={triggerClassName}
        data-testid={triggerTestId}
        data-open={open || undefined}
        disabled={triggerDisabled}
        title={triggerTitle}
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((value) => !value)}
      >
        {children}
      </button>
      {open && (
        <div
          ref={menu}
          id={menuId}
          className="menu"
          role="menu"
          aria-label={label}
          style={position}
          onKeyDown={onMenuKeyDown}
        >
          {entries.map((entry, index) =>
            entry === 'separator' ? (
              <div key={`separator-${index}`} className="menu-separator" role="separator" />
            ) : (
              <button
                key={entry.testId}
                type="button"
                role="menuitem"
                className="menu-item"
                data-danger={entry.danger || undefined}
                data-testid={entry.testId}
                disabled={entry.disabled}
                onClick={() => {
                  setOpen(false);
                  entry.onSelect();
                }}
              >
                <entry.icon size={14} strokeWidth={1.9} aria-hidden="true" />
                {entry.label}
              </button>
            ),
          )}
        </div>
      )}
    </>
  );
}
