import { Folder, GitFork } from 'lucide-react';
import { useEffect, useRef } from 'react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useApprovalsStore, useJobsStore, useQueueStore, useThreadsStore } from '../../services/services.js';
import { formatAge, formatDateTime, useNow } from '../common/relative-time.js';
import { folderName, isUntitled, threadTitle } from '../../format/thread-labels.js';
import { RenameField } from './rename-field.js';
import { ThreadRowMenu } from './thread-row-menu.js';

/** Where the virtualised list places a row: its index, its offset, and the callback that measures it. */
export type ThreadRowSlot = { readonly index: number; readonly top: number; readonly measure: (element: HTMLElement | null) => void };

/** One thread in the sidebar: title, age and folder; a menu to rename or archive. */
export function ThreadRow({ thread, slot }: { readonly thread: Thread; readonly slot: ThreadRowSlot }) {
  const selected = useThreadsStore((s) => s.selectedId === thread.id);
  const unread = useThreadsStore((s) => Boolean(s.readStates[thread.id]?.firstUnread));
  const renaming = useThreadsStore((s) => s.renamingId === thread.id);
  const select = useThreadsStore((s) => s.select);
  const now = useNow();
  // One thread/queue/counts per connection feeds every row; a row never lists its queue.
  const queued = useQueueStore((s) => s.counts[thread.id]);
  const waiting = useApprovalsStore((s) => s.pending.filter((request) => request.threadId === thread.id).length);
  const mainButton = useRef<HTMLButtonElement>(null);
  const wasRenaming = useRef(renaming);

  // After Enter or Escape the editor is gone; hand focus back to the row rather than to nowhere.
  useEffect(() => {
    if (wasRenaming.current && !renaming && document.activeElement === document.body) mainButton.current?.focus();
    wasRenaming.current = renaming;
  }, [renaming]);
  const title = threadTitle(thread);
  const running = thread.status.type === 'active';
  const stamp = thread.archived && thread.archivedAt !== null ? thread.archivedAt : thread.updatedAt;

  return (
    <li
      ref={slot.measure}
      data-index={slot.index}
      style={{ top: slot.top }}
      className="thread-row"
      data-testid="thread-row"
      data-thread-id={thread.id}
      data-selected={selected || undefined}
      data-archived={thread.archived || undefined}
      data-running={running || undefined}
      data-unread={unread || undefined}
    >
      {renaming ? (
        <RenameField thread={thread} />
      ) : (
        <>
          <button
            type="button"
            ref={mainButton}
            className="thread-row-main"
            aria-current={selected ? 'page' : undefined}
            onClick={() => {
              select(thread.id);
              useJobsStore.getState().hide();
            }}
          >
            <span className="thread-row-line">
              {thread.archived && <span className="visually-hidden">Archived: </span>}
              {unread && (
                <span className="thread-row-unread" data-testid="thread-unread" title="Something new you have not read">
                  <span className="visually-hidden">Unread: </span>
                </span>
              )}
              {thread.forkedFromId !== null && (
                <span className="thread-row-fork" data-testid="thread-fork-mark" title="A fork of another thread">
                  <GitFork size={12} strokeWidth={2} aria-hidden="true" />
                  <span className="visually-hidden">Fork: </span>
                </span>
              )}
              <span className="thread-row-title" data-untitled={isUntitled(thread) || undefined}>
                {title}
              </span>
              {waiting > 0 && (
                <span className="thread-row-approvals" data-testid="thread-approvals-count" title={`${waiting} waiting for your approval`}>
                  {waiting}
                  <span className="visually-hidden"> waiting for approval</span>
                </span>
              )}
              {queued ? (
                <span className="thread-row-queued" data-testid="thread-queued-count" title={`${queued} queued ${queued === 1 ? 'message' : 'messages'}`}>
                  {queued}
                  <span className="visually-hidden"> queued</span>
                </span>
              ) : null}
              {running ? (
                <span className="thread-row-running" data-testid="thread-running" title="The agent is working">
                  <span className="thread-row-running-dot" aria-hidden="true" />
                  <span className="visually-hidden">Running</span>
                </span>
              ) : (
                <time
                  className="thread-row-age"
                  dateTime={new Date(stamp * 1000).toISOString()}
                  title={`${thread.archived ? 'Archived' : 'Updated'} ${formatDateTime(stamp)}`}
                >
                  {formatAge(stamp, now)}
                </time>
              )}
            </span>
            <span className="thread-row-meta" title={thread.cwd}>
              <Folder size={11} strokeWidth={2} aria-hidden="true" />
              <span className="thread-row-folder">{folderName(thread.cwd)}</span>
            </span>
          </button>
          <ThreadRowMenu thread={thread} title={title} />
        </>
      )}
    </li>
  );
}
