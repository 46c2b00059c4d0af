import { Archive, Folder, MessagesSquare } from 'lucide-react';
import type { KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useProjectsStore, useThreadsStore } from '../../services/services.js';
import { selectActiveThreads, selectArchivedThreads } from '../../stores/thread-selectors.js';
import { ThreadRow } from './thread-row.js';

/** The scrolling list of threads, with the archived section when asked for. */
export function ThreadList() {
  const active = useThreadsStore(useShallow(selectActiveThreads));
  const archived = useThreadsStore(useShallow(selectArchivedThreads));
  const load = useThreadsStore((s) => s.load);
  const showArchived = useThreadsStore((s) => s.showArchived);
  const setShowArchived = useThreadsStore((s) => s.setShowArchived);
  const refresh = useThreadsStore((s) => s.refresh);
  const projectOfThread = useProjectsStore((s) => s.projectOfThread);
  const groups = byProject(active, projectOfThread);

  return (
    <nav className="thread-list" data-testid="thread-list" aria-label="Thread list" onKeyDown={moveFocus}>
      <div className="thread-section-header">
        <h2 className="thread-section-title">Threads</h2>
        <button
          type="button"
          className="thread-archive-toggle"
          data-testid="show-archived"
          aria-pressed={showArchived}
          title={showArchived ? 'Hide archived threads' : 'Show archived threads'}
          onClick={() => void setShowArchived(!showArchived)}
        >
          <Archive size={13} strokeWidth={2} aria-hidden="true" />
          <span>Show archived</span>
        </button>
      </div>

      {active.length > 0 ? (
        groups.map((group) => (
          <section key={group.folder} className="thread-project" aria-label={`Project ${group.name}`} data-testid="thread-project" data-path={group.folder}>
            <h3 className="thread-project-title" title={group.folder}>
              <Folder size={12} strokeWidth={2} aria-hidden="true" />
              <span>{group.name}</span>
            </h3>
            <ul className="thread-rows">
              {group.threads.map((thread) => (
                <ThreadRow key={thread.id} thread={thread} />
              ))}
            </ul>
          </section>
        ))
      ) : load === 'loading' ? (
        <ul className="thread-rows" aria-busy="true" aria-label="Loading threads">
          {[0, 1, 2].map((n) => (
            <li key={n} className="thread-skeleton" />
          ))}
        </ul>
      ) : load === 'failed' ? (
        <div className="thread-empty">
          <p className="thread-empty-title">Couldn’t load threads</p>
          <button type="button" className="button button-secondary" onClick={() => void refresh()}>
            Try again
          </button>
        </div>
      ) : (
        <div className="thread-empty">
          <MessagesSquare size={22} strokeWidth={1.6} aria-hidden="true" className="thread-empty-icon" />
          <p className="thread-empty-title">No threads yet</p>
          <p className="thread-empty-text">Start a thread to work with an agent on a project.</p>
        </div>
      )}

      {showArchived && (
        <section className="thread-archived" aria-label="Archived threads">
          <div className="thread-section-header">
            <h2 className="thread-section-title">Archived</h2>
            <span className="thread-section-count">{archived.length}</span>
          </div>
          {archived.length > 0 ? (
            <ul className="thread-rows">
              {archived.map((thread) => (
                <ThreadRow key={thread.id} thread={thread} />
              ))}
            </ul>
          ) : (
            <p className="thread-archived-empty">Nothing archived.</p>
          )}
        </section>
      )}
    </nav>
  );
}

/** Threads by project folder (a separate copy counts as its project), in the order their newest thread comes. */
function byProject(threads: readonly Thread[], projectOfThread: Readonly<Record<string, string>>) {
  const groups = new Map<string, Thread[]>();
  for (const thread of threads) {
    const folder = projectOfThread[thread.id] ?? thread.cwd;
    const group = groups.get(folder);
    if (group) group.push(thread);
    else groups.set(folder, [thread]);
  }
  return [...groups.entries()].map(([folder, grouped]) => ({ folder, name: folder.split('/').filter(Boolean).pop() ?? folder, threads: grouped }));
}

/** Arrow keys walk the rows, like a native list. */
function moveFocus(event: KeyboardEvent<HTMLElement>): void {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  const target = event.target as HTMLElement;
  if (!target.classList.contains('thread-row-main')) return;
  const rows = [...event.currentTarget.querySelectorAll<HTMLButtonElement>('.thread-row-main')];
  const index = rows.indexOf(target as HTMLButtonElement);
  const next = rows[index + (event.key === 'ArrowDown' ? 1 : -1)];
  if (next) {
    event.preventDefault();
    next.focus();
  }
}
