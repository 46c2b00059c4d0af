import { GitBranch } from 'lucide-react';
import type { RepositoryState } from '../../../../shared/protocol/methods/projects.js';
import './projects.css';

/**
 * "Work in a separate copy": a git worktree on a new branch, so the agent never touches the
 * person's checkout. Offered for a new thread and for an agent job; only a repository has copies.
 */
export function SeparateCopyChoice({
  repository,
  checked,
  onChange,
  testId,
}: {
  /** The folder's repository; null or undefined: not a repository (or not known yet). */
  readonly repository: RepositoryState | null | undefined;
  readonly checked: boolean;
  readonly onChange: (checked: boolean) => void;
  readonly testId: string;
}) {
  const isGit = Boolean(repository);
  return (
    <label className={`project-worktree${isGit ? '' : ' is-disabled'}`}>
      <input type="checkbox" data-testid={testId} checked={checked && isGit} disabled={!isGit} onChange={(e) => onChange(e.target.checked)} />
      <GitBranch size={14} strokeWidth={1.9} aria-hidden="true" />
      <span>
        Work in a separate copy
        <span className="project-worktree-hint">
          {isGit ? ` — the agent gets its own branch from ${repository?.branch ?? 'this commit'}; your checkout is not touched.` : ' — needs a git repository.'}
        </span>
      </span>
    </label>
  );
}
