import { ArchiveRestore, Ellipsis, Folder, GitBranch, SquareTerminal } from 'lucide-react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useTerminalStore, useThreadsStore } from '../../services.js';
import { threadTitle } from '../../format/thread-labels.js';
import { PopoverMenu } from '../common/popover-menu.js';
import { useThreadActions } from '../threads/use-thread-actions.js';
import { GoalButton } from './goal-editor.js';
import { SandboxChip } from './sandbox-chip.js';

/** Thread name with where it works (folder, git branch), its goal, its menu, and an archived notice with a way back. */
export function ConversationHeader({ thread }: { readonly thread: Thread }) {
  const unarchive = useThreadsStore((s) => s.unarchive);
  const actions = useThreadActions(thread);
  const branch = thread.gitInfo?.branch ?? null;
  const title = threadTitle(thread);
  const terminalOpen = useTerminalStore((s) => s.open[thread.id] === true);
  const toggleTerminal = useTerminalStore((s) => s.toggle);

  return (
    <header className="conversation-header">
      <div className="conversation-heading">
        <h1 className="conversation-title" data-testid="conversation-title">
          {title}
        </h1>
        <div className="conversation-meta">
          <span className="conversation-meta-item" title={thread.cwd}>
            <Folder size={13} strokeWidth={1.9} aria-hidden="true" />
            <span className="conversation-cwd" data-testid="conversation-cwd">
              {thread.cwd}
            </span>
          </span>
          {branch && (
            <span className="conversation-meta-item conversation-branch" title={`Git branch ${branch}`}>
              <GitBranch size={13} strokeWidth={1.9} aria-hidden="true" />
              <span>{branch}</span>
            </span>
          )}
          {!thread.archived && <SandboxChip threadId={thread.id} />}
        </div>
      </div>
      <div className="conversation-tools">
        {thread.archived ? (
          <div className="conversation-archived">
            <span className="conversation-badge">Archived</span>
            <button type="button" className="button button-secondary" onClick={() => void unarchive(thread.id)}>
              <ArchiveRestore size={14} strokeWidth={1.9} aria-hidden="true" />
              Unarchive
            </button>
          </div>
        ) : (
          <GoalButton threadId={thread.id} disabled={false} />
        )}
        <button
          type="button"
          className="icon-button conversation-terminal-button"
          aria-label="Terminal"
          aria-pressed={terminalOpen}
          title={terminalOpen ? 'Hide the terminal' : `Open a terminal in ${thread.cwd}`}
          data-testid="terminal-toggle"
          onClick={() => toggleTerminal(thread.id)}
        >
          <SquareTerminal size={16} strokeWidth={1.9} aria-hidden="true" />
        </button>
        <PopoverMenu
          label={`Actions for ${title}`}
          entries={actions}
          triggerClassName="icon-button conversation-menu-button"
          triggerTestId="conversation-menu"
        >
          <Ellipsis size={16} strokeWidth={2} aria-hidden="true" />
        </PopoverMenu>
      </div>
    </header>
  );
}
