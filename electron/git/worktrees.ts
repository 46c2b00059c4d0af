import fs from 'node:fs';
import path from 'node:path';
import { GitError, type GitRunner } from './git-runner.js';
import { currentBranch, readRepositoryState, uncommittedPaths } from './repository.js';

/** Every branch Wheelhouse makes for an agent starts with this. */
export const WORKTREE_BRANCH_PREFIX = 'wheelhouse/';
/** Where the branch each worktree was made from is kept: the branch's own config, so deleting the branch removes it too. */
const BASE_KEY = 'wheelhouseBase';

/** A commit on the agent's branch that its base branch does not have. */
export interface BranchCommit {
  readonly sha: string;
  readonly subject: string;
}

/** A worktree Wheelhouse made, as it is now. */
export interface WorktreeState {
  readonly path: string;
  readonly branch: string;
  /** The branch it was made from, which merge goes back into. */
  readonly baseBranch: string;
  /** The person's checkout (where merges happen). */
  readonly mainRoot: string;
  readonly unmergedCommits: readonly BranchCommit[];
  /** Files changed in the worktree and not yet committed. */
  readonly uncommittedPaths: readonly string[];
}

export type MergeOutcome =
  | { readonly status: 'merged'; readonly how: 'fast-forward' | 'merge-commit' | 'up-to-date'; readonly commit: string }
  /** Nothing was changed: the merge was aborted; these files conflict. */
  | { readonly status: 'conflict'; readonly files: readonly string[] };

/** Something about the repositories keeps an operation from running; `message` says what to do. */
export class WorktreeError extends Error {
  constructor(
    readonly reason: 'not-a-repository' | 'not-a-worktree' | 'no-commit' | 'base-not-checked-out' | 'checkout-busy' | 'git-failed',
    message: string,
  ) {
    super(message);
    this.name = 'WorktreeError';
  }
}

/** Turns a free text into a branch-safe short name (`fix login bug` → `fix-login-bug`). */
export function shortNameOf(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug || 'agent';
}

/**
 * Makes a separate checkout of the repository containing `cwd` on a new branch
 * `wheelhouse/<shortName>` (a suffix is added when taken), in a folder under `parentDir`,
 * starting from the commit the person's checkout is on. The person's checkout, index and
 * branch are not touched.
 */
export async function createWorktree(git: GitRunner, cwd: string, parentDir: string, shortName: string): Promise<WorktreeState> {
  const repo = await readRepositoryState(git, cwd);
  if (!repo) throw new WorktreeError('not-a-repository', `${cwd} is not in a git repository, so it cannot get a separate copy. Start without one.`);
  if (!repo.head) throw new WorktreeError('no-commit', `${repo.root} has no commit yet; make a first commit, then ask for a separate copy again.`);
  const base = repo.branch ?? repo.head;
  const name = await freeBranchName(git, repo.root, shortName);
  fs.mkdirSync(parentDir, { recursive: true });
  const folder = freeFolder(parentDir, `${path.basename(repo.mainRoot)}-${name.slice(WORKTREE_BRANCH_PREFIX.length).replace(/\//g, '-')}`);
  await git.run(['worktree', 'add', '-q', '-b', name, folder, repo.head], { cwd: repo.root });
  await git.run(['config', `branch.${name}.${BASE_KEY}`, base], { cwd: repo.root });
  return readWorktree(git, folder);
}

/** The state of a worktree made by `createWorktree`. */
export async function readWorktree(git: GitRunner, worktreePath: string): Promise<WorktreeState> {
  if (!fs.existsSync(worktreePath)) throw new WorktreeError('not-a-worktree', `The separate copy at ${worktreePath} no longer exists.`);
  const repo = await readRepositoryState(git, worktreePath);
  const branch = repo ? await currentBranch(git, worktreePath) : null;
  if (!repo || !branch?.startsWith(WORKTREE_BRANCH_PREFIX) || repo.mainRoot === repo.root) {
    throw new WorktreeError('not-a-worktree', `${worktreePath} is not a separate copy made by Wheelhouse.`);
  }
  const baseBranch = await git.text(['config', '--get', `branch.${branch}.${BASE_KEY}`], { cwd: repo.root, okExitCodes: [1] });
  if (!baseBranch) throw new WorktreeError('not-a-worktree', `Wheelhouse does not know which branch ${branch} was made from.`);
  return {
    path: repo.root,
    branch,
    baseBranch,
    mainRoot: repo.mainRoot,
    unmergedCommits: await commitsBetween(git, repo.root, baseBranch, branch),
    uncommittedPaths: await uncommittedPaths(git, repo.root),
  };
}

/** Commits `paths` (all changes when omitted) in the worktree, author from git config; returns the new commit, or null when there was nothing to commit. */
export async function commitChanges(git: GitRunner, cwd: string, message: string, paths?: readonly string[]): Promise<string | null> {
  const pathspec = paths && paths.length > 0 ? ['--', ...paths] : [];
  await git.run(['add', '-A', ...pathspec], { cwd });
  const staged = await git.run(['diff', '--cached', '--quiet', ...pathspec], { cwd, okExitCodes: [1] });
  if (staged.exitCode === 0) return null;
  await git.run(['commit', '-q', '--no-verify', '-m', message, ...pathspec], { cwd });
  return git.text(['rev-parse', 'HEAD'], { cwd });
}

/**
 * Merges the worktree's branch into the branch it was made from, in the person's checkout
 * (which must have that branch checked out): a fast-forward when possible, else a merge
 * commit. Uncommitted changes in the worktree are committed first with `message`. A
 * conflict is never resolved here: the merge is aborted and the files are reported.
 */
export async function mergeWorktree(git: GitRunner, worktreePath: string, message: string): Promise<MergeOutcome> {
  const worktree = await readWorktree(git, worktreePath);
  const checkedOut = await currentBranch(git, worktree.mainRoot);
  if (checkedOut !== worktree.baseBranch) {
    throw new WorktreeError(
      'base-not-checked-out',
      `Your checkout at ${worktree.mainRoot} is on ${checkedOut ?? 'a detached commit'}, not ${worktree.baseBranch}. Switch it to ${worktree.baseBranch}, then merge again.`,
    );
  }
  if (await git.run(['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { cwd: worktree.mainRoot, okExitCodes: [1] }).then((r) => r.exitCode === 0)) {
    throw new WorktreeError('checkout-busy', `Your checkout at ${worktree.mainRoot} is in the middle of a merge. Finish or abort it, then merge again.`);
  }
  await commitChanges(git, worktree.path, message);
  try {
    const before = await git.text(['rev-parse', 'HEAD'], { cwd: worktree.mainRoot });
    await git.run(['merge', '--no-edit', '-m', `Merge ${worktree.branch}: ${message}`, worktree.branch], { cwd: worktree.mainRoot });
    const after = await git.text(['rev-parse', 'HEAD'], { cwd: worktree.mainRoot });
    const parents = (await git.text(['rev-list', '--parents', '-n', '1', after], { cwd: worktree.mainRoot })).split(' ').length - 1;
    const how = before === after ? 'up-to-date' : parents > 1 ? 'merge-commit' : 'fast-forward';
    return { status: 'merged', how, commit: after };
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    const conflicted = await git.text(['diff', '--name-only', '--diff-filter=U', '-z'], { cwd: worktree.mainRoot });
    const merging = await git.run(['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { cwd: worktree.mainRoot, okExitCodes: [1] });
    if (merging.exitCode === 0) await git.run(['merge', '--abort'], { cwd: worktree.mainRoot });
    const files = conflicted.split('\0').filter(Boolean);
    if (files.length > 0) return { status: 'conflict', files };
    // Refused before it began (e.g. the person's uncommitted changes would be overwritten): git's words say which files.
    throw new WorktreeError('git-failed', `The merge did not start: ${error.stderr || error.message}`);
  }
}

/** Removes the worktree folder and keeps its branch (uncommitted changes are committed first, so nothing is lost). */
export async function closeWorktreeKeepingBranch(git: GitRunner, worktreePath: string, message: string): Promise<WorktreeState> {
  const worktree = await readWorktree(git, worktreePath);
  await commitChanges(git, worktree.path, message);
  await git.run(['worktree', 'remove', worktree.path], { cwd: worktree.mainRoot });
  return worktree;
}

/** Removes the worktree and deletes its branch, unmerged commits and uncommitted changes included (the caller has asked the person). */
export async function discardWorktree(git: GitRunner, worktreePath: string): Promise<WorktreeState> {
  const worktree = await readWorktree(git, worktreePath);
  await git.run(['worktree', 'remove', '--force', worktree.path], { cwd: worktree.mainRoot });
  await git.run(['branch', '-D', worktree.branch], { cwd: worktree.mainRoot });
  return worktree;
}

async function commitsBetween(git: GitRunner, cwd: string, base: string, branch: string): Promise<BranchCommit[]> {
  const log = await git.text(['log', '--format=%H%x00%s', `${base}..${branch}`], { cwd });
  return log
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [sha, subject] = line.split('\0');
      return { sha: sha!, subject: subject ?? '' };
    });
}

async function freeBranchName(git: GitRunner, cwd: string, shortName: string): Promise<string> {
  const base = `${WORKTREE_BRANCH_PREFIX}${shortNameOf(shortName)}`;
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    const taken = await git.run(['show-ref', '--verify', '-q', `refs/heads/${name}`], { cwd, okExitCodes: [1] });
    if (taken.exitCode !== 0) return name;
  }
}

function freeFolder(parent: string, name: string): string {
  for (let n = 1; ; n++) {
    const folder = path.join(parent, n === 1 ? name : `${name}-${n}`);
    if (!fs.existsSync(folder)) return folder;
  }
}
