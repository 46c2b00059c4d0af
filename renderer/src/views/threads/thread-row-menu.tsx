import { Ellipsis } from 'lucide-react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { PopoverMenu } from '../common/popover-menu.js';
import { useThreadActions } from './use-thread-actions.js';

/** The "…" button on a row and its menu: Rename, Fork, Roll back, Archive or Unarchive. */
export function ThreadRowMenu({ thread, title }: { readonly thread: Thread; readonly title: string }) {
  const entries = useThreadActions(thread);
  return (
    <PopoverMenu
      label={`Actions for ${title}`}
      entries={entries}
      triggerClassName="thread-row-menu-button icon-button"
      triggerTestId="thread-menu"
    >
      <Ellipsis size={15} strokeWidth={2} aria-hidden="true" />
    </PopoverMenu>
  );
}
