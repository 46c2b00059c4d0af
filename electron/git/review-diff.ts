import type { Checkpoints, CheckpointWorkspace } from './checkpoints.js';
import type { GitRunner } from './git-runner.js';

/** The diff of a review target (`review/start`), resolved in a repository. */
export type ReviewDiffTarget =
  | { readonly type: 'uncommittedChanges' }
  | { readonly type: 'baseBranch'; readonly branch: string }
  | { readonly type: 'commit'; readonly sha: string };

export interface ReviewDiff {
  /** The repository's top folder: the diff's paths are relative to it. */
  readonly root: string;
  /** `git diff` of the target (empty when there is nothing to review). */
  readonly diff: string;
  /** For `baseBranch`: the commit the current branch left the base at. */
  readonly mergeBase: string | null;
  /** For `commit`: the full id and subject. */
  readonly commit: { readonly sha: string; readonly subject: string } | null;
}

/** Why a target has no diff: the folder is no repository, or the branch or commit is not in it. */
export class ReviewTargetError extends Error {
  constructor(
    readonly kind: 'notARepository' | 'unknownBranch' | 'unknownCommit',
    message: string,
  ) {
    super(message);
    this.name = 'ReviewTargetError';
  }
}

/** git's id of the empty tree: what a repository without commits, or a root commit's parent, is compared with. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * The unified diff a review looks at. The working tree is read through a scratch index
 * (`Checkpoints.snapshot`), so untracked files are included and the person's index is never
 * touched: uncommitted changes are HEAD → working tree; a base branch is merge-base → working
 * tree (as Codex's prompt asks the model to run `git diff <merge-base>`); a commit is its
 * parent (or the empty tree) → the commit.
 */
export async function reviewDiff(git: GitRunner, checkpoints: Checkpoints, cwd: string, target: ReviewDiffTarget): Promise<ReviewDiff> {
  const probe = await git.run(['rev-parse', '--show-toplevel'], { cwd, okExitCodes: [128] });
  if (probe.exitCode !== 0) throw new ReviewTargetError('notARepository', `${cwd} is not a git repository, so there are no changes to review.`);
  const root = probe.stdout.toString('utf8').trim();
  const workspace: CheckpointWorkspace = { root, kind: 'git', env: {} };
  const call = { cwd: root };
  switch (target.type) {
    case 'uncommittedChanges': {
      const head = await commitOf(git, root, 'HEAD');
      const now = await checkpoints.snapshot(workspace);
      return { root, diff: await checkpoints.diff(workspace, head ?? EMPTY_TREE, now), mergeBase: null, commit: null };
    }
    case 'baseBranch': {
      const base = await commitOf(git, root, target.branch);
      if (!base) throw new ReviewTargetError('unknownBranch', `This repository has no branch ${target.branch}.`);
      const head = await commitOf(git, root, 'HEAD');
      const found = head ? await git.run(['merge-base', head, base], { ...call, okExitCodes: [1] }) : null;
      const mergeBase = found && found.exitCode === 0 ? found.stdout.toString('utf8').trim() : base;
      const now = await checkpoints.snapshot(workspace);
      return { root, diff: await checkpoints.diff(workspace, mergeBase, now), mergeBase, commit: null };
    }
    case 'commit': {
      const sha = await commitOf(git, root, target.sha);
      if (!sha) throw new ReviewTargetError('unknownCommit', `This repository has no commit ${target.sha}.`);
      const parent = await commitOf(git, root, `${sha}^`);
      const subject = await git.text(['log', '-1', '--format=%s', sha], call);
      return { root, diff: await checkpoints.diff(workspace, parent ?? EMPTY_TREE, sha), mergeBase: null, commit: { sha, subject } };
    }
  }
}

/** The commit `rev` names, or null. `--end-of-options` keeps a name like `--output=x` from being read as an option. */
async function commitOf(git: GitRunner, cwd: string, rev: string): Promise<string | null> {
  const found = await git.run(['rev-parse', '-q', '--verify', '--end-of-options', `${rev}^{commit}`], { cwd, okExitCodes: [1, 128] });
  return found.exitCode === 0 ? found.stdout.toString('utf8').trim() : null;
}
