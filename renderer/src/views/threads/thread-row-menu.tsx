import { Archive, ArchiveRestore, Ellipsis, Pencil } from 'lucide-react';
import { useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useThreadsStore } from '../../services.js';
import { usePopoverPosition } from '../common/use-popover-position.js';

/** The "…" button on a row and its menu: Rename, Archive or Unarchive. */
export function ThreadRowMenu({ thread, title }: { readonly thread: Thread; readonly title: string }) {
  const startRename = useThreadsStore((s) => s.startRename);
  const archive = useThreadsStore((s) => s.archive);
  const unarchive = useThreadsStore((s) => s.unarchive);
  const [open, setOpen] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const position = usePopoverPosition(open, trigger, menu);

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) trigger.current?.focus();
  };

  useLayoutEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLButtonElement>('[role="menuitem"]')?.focus();
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !trigger.current?.contains(target)) setOpen(false);
    };
    const onScrollOrResize = () => setOpen(false);
    document.addEventListener('pointerdown', onPointerDown, true);
    window.addEventListener('resize', onScrollOrResize);
    document.addEventListener('scroll', onScrollOrResize, true);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown, true);
      window.removeEventListener('resize', onScrollOrResize);
      document.removeEventListener('scroll', onScrollOrResize, true);
    };
  }, [open]);

  const onMenuKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = [...event.currentTarget.querySelectorAll<HTMLButtonElement>('[role="menuitem"]')];
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

  const choose = (action: () => void) => {
    setOpen(false);
    action();
  };

  return (
    <>
      <button
        ref={trigger}
        type="button"
        className="thread-row-menu-button icon-button"
        data-testid="thread-menu"
        data-open={open || undefined}
        aria-label={`Actions for ${title}`}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((value) => !value)}
      >
        <Ellipsis size={15} strokeWidth={2} aria-hidden="true" />
      </button>
      {open && (
        <div
          ref={menu}
          id={menuId}
          className="menu"
          role="menu"
          aria-label={`Actions for ${title}`}
          style={position}
          onKeyDown={onMenuKeyDown}
        >
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            data-testid="rename-thread"
            onClick={() => choose(() => startRename(thread.id))}
          >
            <Pencil size={14} strokeWidth={1.9} aria-hidden="true" />
            Rename
          </button>
          {thread.archived ? (
            <button
              type="button"
              role="menuitem"
              className="menu-item"
              data-testid="unarchive-thread"
              onClick={() => choose(() => void unarchive(thread.id))}
            >
              <ArchiveRestore size={14} strokeWidth={1.9} aria-hidden="true" />
              Unarchive
            </button>
          ) : (
            <button
              type="button"
              role="menuitem"
              className="menu-item"
              data-testid="archive-thread"
              onClick={() => choose(() => void archive(thread.id))}
            >
              <Archive size={14} strokeWidth={1.9} aria-hidden="true" />
              Archive
            </button>
          )}
        </div>
      )}
    </>
  );
}
