import { Archive, ArchiveRestore, GitFork, Pencil, Play, Undo2 } from 'lucide-react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useConversationStore, useThreadsStore } from '../../services/services.js';
import { useConfirmStore } from '../../stores/confirm-store.js';
import { canContinue } from '../../stores/conversation-store.js';
import type { MenuEntry } from '../common/popover-menu.js';

/** The actions on a thread, for the sidebar row menu and the conversation header menu alike. */
export function useThreadActions(thread: Thread): (MenuEntry | 'separator')[] {
  const startRename = useThreadsStore((s) => s.startRename);
  const archive = useThreadsStore((s) => s.archive);
  const unarchive = useThreadsStore((s) => s.unarchive);
  const fork = useThreadsStore((s) => s.fork);
  const rollback = useConversationStore((s) => s.rollbackLastTurn);
  const ask = useConfirmStore((s) => s.ask);
  const running = thread.status.type === 'active';
  // Only the open thread's turns are known here; its newest one may have been cut off (a restart) or stopped.
  const continuable = useConversationStore(
    (s) => s.threadId === thread.id && s.revision >= 0 && s.activeTurnId === null && canContinue(s.data),
  );
  const continueInterrupted = useConversationStore((s) => s.continueInterrupted);
  const hasMessages = thread.preview.trim().length > 0;

  const confirmRollback = async () => {
    const yes = await ask({
      title: 'Roll back the last turn?',
      message: 'Your last message and everything the agent did in reply are removed from this thread. This can’t be undone.',
      confirmLabel: 'Roll back',
      danger: true,
    });
    if (yes) await rollback(thread.id);
  };

  return [
    ...(continuable && !thread.archived
      ? [{ testId: 'continue-thread', label: 'Continue', icon: Play, onSelect: () => void continueInterrupted() }]
      : []),
    { testId: 'rename-thread', label: 'Rename', icon: Pencil, onSelect: () => startRename(thread.id) },
    {
      testId: 'fork-thread',
      label: 'Fork',
      icon: GitFork,
      disabled: !hasMessages,
      onSelect: () => void fork(thread.id),
    },
    {
      testId: 'rollback-thread',
      label: 'Roll back last turn',
      icon: Undo2,
      disabled: running || !hasMessages || thread.archived,
      onSelect: () => void confirmRollback(),
    },
    'separator',
    thread.archived
      ? { testId: 'unarchive-thread', label: 'Unarchive', icon: ArchiveRestore, onSelect: () => void unarchive(thread.id) }
      : {
          testId: 'archive-thread',
          label: 'Archive',
          icon: Archive,
          disabled: running,
          onSelect: () => void archive(thread.id),
        },
  ];
}
