import type { ReviewTarget } from '../../../shared/protocol/index.js';
import type { ReviewDiff } from '../../git/review-diff.js';

/** A diff past this many characters is cut for the model (it says so); the model may read files itself next time. */
export const MAX_REVIEW_DIFF_CHARS = 400 * 1024;

/** What the review looks at, as a person reads it (Codex's `user_facing_hint`); the enteredReviewMode item's `review`. */
export function reviewHint(target: ReviewTarget, diff: ReviewDiff | null): string {
  switch (target.type) {
    case 'uncommittedChanges':
      return 'current changes';
    case 'baseBranch':
      return `changes against '${target.branch}'`;
    case 'commit': {
      const short = (diff?.commit?.sha ?? target.sha).slice(0, 7);
      const title = target.title ?? diff?.commit?.subject ?? null;
      return title ? `commit ${short}: ${title}` : `commit ${short}`;
    }
    case 'custom':
      return target.instructions.trim();
  }
}

/** The review turn's request to the model: what to review, with the diff when the target has one. */
export function reviewRequest(target: ReviewTarget, diff: ReviewDiff | null, cwd: string): string {
  const ask = askOf(target, diff);
  if (!diff) return `${ask}\n\nThe project folder is ${cwd}.`;
  if (diff.diff.length === 0) return `${ask}\n\nThe repository is ${diff.root}. The diff is empty: there are no changes to review.`;
  const cut = diff.diff.length > MAX_REVIEW_DIFF_CHARS;
  const shown = cut ? diff.diff.slice(0, MAX_REVIEW_DIFF_CHARS) : diff.diff;
  return [
    ask,
    '',
    `The repository is ${diff.root}; paths in the diff are relative to it, absolute_file_path is ${diff.root}/<path>.`,
    cut ? `The diff is ${diff.diff.length} characters; only the first ${MAX_REVIEW_DIFF_CHARS} are shown.` : '',
    '',
    '```diff',
    shown,
    '```',
  ]
    .filter((line, i) => line !== '' || i !== 3)
    .join('\n');
}

function askOf(target: ReviewTarget, diff: ReviewDiff | null): string {
  switch (target.type) {
    case 'uncommittedChanges':
      return 'Review the uncommitted changes (staged, unstaged and untracked files) and give prioritized findings.';
    case 'baseBranch':
      return `Review the changes of the current branch against the base branch '${target.branch}' (merge base ${diff?.mergeBase ?? 'unknown'}) and give prioritized findings.`;
    case 'commit': {
      const sha = diff?.commit?.sha ?? target.sha;
      const title = target.title ?? diff?.commit?.subject ?? null;
      return `Review the changes of commit ${sha}${title ? ` ("${title}")` : ''} and give prioritized findings.`;
    }
    case 'custom':
      return target.instructions;
  }
}
