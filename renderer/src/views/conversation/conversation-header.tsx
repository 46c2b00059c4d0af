import { ArchiveRestore, Ellipsis, FileDiff, Folder, GitBranch, SquareTerminal } from 'lucide-react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useProjectsStore, useTerminalStore, useThreadsStore } from '../../services/services.js';
import { WorktreeMenu } from '../projects/worktree-menu.js';
import { threadTitle } from '../../format/thread-labels.js';
import { PopoverMenu } from '../common/popover-menu.js';
import { useThreadActions } from '../threads/use-thread-actions.js';
import { GoalButton } from './goal-editor.js';
import { MachineChip } from './machine-chip.js';
import { SandboxChip } from './sandbox-chip.js';

/** Thread name with where it works (folder, git branch), its goal, its menu, and an archived notice with a way back. */
export function ConversationHeader({ thread }: { readonly thread: Thread }) {
  const unarchive = useThreadsStore((s) => s.unarchive);
  const actions = useThreadActions(thread);
  const branch = thread.gitInfo?.branch ?? null;
  const title = threadTitle(thread);
  const terminalOpen = useTerminalStore((s) => s.open[thread.id] === true);
  const toggleTerminal = useTerminalStore((s) => s.toggle);
  const project = useProjectsStore((s) => s.projectOfThread[thread.id] ?? thread.cwd);
  const showProject = useProjectsStore((s) => s.showProject);
  const changesOpen = useProjectsStore((s) => s.changes?.threadId === thread.id);
  const toggleChanges = useProjectsStore((s) => s.toggleChanges);
  const inCopy = branch?.startsWith('wheelhouse/') ?? false;

  return (
    <header className="conversation-header">
      <div className="conversation-heading">
        <h1 className="conversation-title" data-testid="conversation-title">
          {title}
        </h1>
        <div className="conversation-meta">
          <button
            type="button"
            className="conversation-meta-item conversation-project"
            title={inCopy ? `Works in a separate copy of ${project}: ${thread.cwd}` : `Open the project ${project}`}
            onClick={() => showProject(project)}
            data-testid="conversation-project"
          >
            <Folder size={13} strokeWidth={1.9} aria-hidden="true" />
            <span className="conversation-cwd" data-testid="conversation-cwd">
              {thread.cwd}
            </span>
          </button>
          {branch && inCopy && <WorktreeMenu threadId={thread.id} branch={branch} />}
          {branch && !inCopy && (
            <span className="conversation-meta-item conversation-branch" title={`Git branch ${branch}`}>
              <GitBranch size={13} strokeWidth={1.9} aria-hidden="true" />
              <span>{branch}</span>
            </span>
          )}
          {!thread.archived && <MachineChip thread={thread} />}
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
          className="icon-button conversation-changes-button"
          aria-label="Changes"
          aria-pressed={changesOpen}
          title={changesOpen ? 'Hide the changes' : 'Files this thread changed, with undo'}
          data-testid="changes-toggle"
          onClick={() => toggleChanges(thread.id)}
        >
          <FileDiff size={16} strokeWidth={1.9} aria-hidden="true" />
        </button>
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
