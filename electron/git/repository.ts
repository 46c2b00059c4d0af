import path from 'node:path';
import type { GitRunner } from './git-runner.js';

/** A folder's repository as the person sees it: where it starts, the branch, whether anything is uncommitted. */
export interface RepositoryState {
  /** The work tree's top folder. */
  readonly root: string;
  /** The checked-out branch; null when HEAD is detached (or the repository has no commit yet and no branch name). */
  readonly branch: string | null;
  /** The commit HEAD points at; null before the first commit. */
  readonly head: string | null;
  /** Uncommitted changes, untracked files included (ignored files not). */
  readonly dirty: boolean;
  /** The main checkout's top folder (differs from `root` inside a linked worktree). */
  readonly mainRoot: string;
}

/** Whether `cwd` is inside a git work tree, and its state; null for a plain folder. */
export async function readRepositoryState(git: GitRunner, cwd: string): Promise<RepositoryState | null> {
  const probe = await git.run(['rev-parse', '--is-inside-work-tree'], { cwd, okExitCodes: [128] });
  if (probe.exitCode !== 0 || probe.stdout.toString().trim() !== 'true') return null;
  const [root, commonDir] = (await git.text(['rev-parse', '--show-toplevel', '--path-format=absolute', '--git-common-dir'], { cwd })).split('\n');
  const branch = await currentBranch(git, cwd);
  const head = await git.run(['rev-parse', '--verify', '-q', 'HEAD'], { cwd, okExitCodes: [1] });
  const status = await git.run(['status', '--porcelain=v1', '-z', '--untracked-files=normal'], { cwd });
  return {
    root: root!,
    branch,
    head: head.exitCode === 0 ? head.stdout.toString().trim() : null,
    dirty: status.stdout.length > 0,
    // The common dir of a non-bare repository is `<main checkout>/.git`.
    mainRoot: path.basename(commonDir!) === '.git' ? path.dirname(commonDir!) : root!,
  };
}

export async function currentBranch(git: GitRunner, cwd: string): Promise<string | null> {
  const ref = await git.run(['symbolic-ref', '--short', '-q', 'HEAD'], { cwd, okExitCodes: [1] });
  return ref.exitCode === 0 ? ref.stdout.toString().trim() : null;
}

/** Paths with uncommitted changes (relative to the work tree's top), untracked files included. */
export async function uncommittedPaths(git: GitRunner, cwd: string): Promise<string[]> {
  const status = await git.run(['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd });
  const entries = status.stdout.toString('utf8').split('\0').filter(Boolean);
  const paths: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    paths.push(entry.slice(3));
    // A rename or copy is followed by its source path as a separate entry.
    if (entry[0] === 'R' || entry[0] === 'C') i++;
  }
  return paths;
}
