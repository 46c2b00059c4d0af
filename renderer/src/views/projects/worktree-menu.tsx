import { Archive, GitBranch, GitMerge, Trash2 } from 'lucide-react';
import { useEffect } from 'react';
import { useProjectsStore } from '../../services/services.js';
import { PopoverMenu } from '../common/popover-menu.js';

/**
 * The branch of a thread that works in a separate copy, with what to do when it is done:
 * merge it into the branch it came from, keep the branch (the copy's folder goes), or
 * discard both (after a confirmation that lists what would be lost).
 */
export function WorktreeMenu({ threadId, branch }: { readonly threadId: string; readonly branch: string }) {
  const worktree = useProjectsStore((s) => s.worktrees[threadId]);
  const read = useProjectsStore((s) => s.readWorktree);
  const merge = useProjectsStore((s) => s.merge);
  const keep = useProjectsStore((s) => s.keep);
  const discard = useProjectsStore((s) => s.discard);
  useEffect(() => {
    void read(threadId);
  }, [read, threadId]);

  if (worktree === null) {
    return (
      <span className="conversation-meta-item conversation-branch" title={`The separate copy is closed; its branch was ${branch}`} data-testid="worktree-closed">
        <GitBranch size={13} strokeWidth={1.9} aria-hidden="true" />
        <span>{branch} (copy closed)</span>
      </span>
    );
  }
  const unmerged = worktree ? worktree.unmergedCommits.length + (worktree.uncommittedPaths.length > 0 ? 1 : 0) : 0;
  return (
    <PopoverMenu
      label={`Separate copy on ${branch}`}
      triggerClassName="conversation-meta-item conversation-branch worktree-trigger"
      triggerTestId="worktree-menu"
      entries={[
        { testId: 'worktree-merge', label: worktree ? `Merge into ${worktree.baseBranch}` : 'Merge', icon: GitMerge, onSelect: () => void merge(threadId), disabled: !worktree },
        { testId: 'worktree-keep', label: 'Keep the branch, close the copy', icon: Archive, onSelect: () => void keep(threadId), disabled: !worktree },
        'separator',
        { testId: 'worktree-discard', label: 'Discard the copy and its branch', icon: Trash2, onSelect: () => void discard(threadId), disabled: !worktree, danger: true },
      ]}
    >
      <GitBranch size={13} strokeWidth={1.9} aria-hidden="true" />
      <span>{branch}</span>
      {unmerged > 0 && <span className="worktree-unmerged">not merged</span>}
    </PopoverMenu>
  );
}
