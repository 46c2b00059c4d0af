import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessSupervisor } from '../exec/index.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { GitRunner } from './git-runner.js';
import { readRepositoryState } from './repository.js';
import { closeWorktreeKeepingBranch, createWorktree, discardWorktree, mergeWorktree, readWorktree, WorktreeError } from './worktrees.js';

const temp = new TempDirs();
const supervisors: ProcessSupervisor[] = [];
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.dispose()));
  temp.cleanup();
});

function runner(): GitRunner {
  const supervisor = new ProcessSupervisor({ logDir: temp.make('wh-git-logs-') });
  supervisors.push(supervisor);
  return new GitRunner(supervisor);
}

/** The person's own git, outside Wheelhouse: sets up and inspects the repositories. */
function sh(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function repository(): string {
  const repo = temp.make('wh-repo-');
  sh(repo, 'init', '-q', '-b', 'main');
  sh(repo, 'config', 'user.name', 'Person');
  sh(repo, 'config', 'user.email', 'person@example.com');
  fs.writeFileSync(path.join(repo, 'shared.txt'), 'one\ntwo\nthree\n');
  sh(repo, 'add', '.');
  sh(repo, 'commit', '-q', '-m', 'first');
  return repo;
}

describe('repository state', () => {
  it('tells a plain folder from a repository, with branch and dirty state', async () => {
    const git = runner();
    expect(await readRepositoryState(git, temp.make())).toBeNull();
    const repo = repository();
    expect(await readRepositoryState(git, repo)).toMatchObject({ root: repo, branch: 'main', dirty: false, mainRoot: repo });
    fs.writeFileSync(path.join(repo, 'new.txt'), 'x');
    expect(await readRepositoryState(git, repo)).toMatchObject({ dirty: true });
  });
});

describe('worktrees', () => {
  it('gives two agents separate copies on their own branches; the person\'s checkout, index and branch stay as they were', async () => {
    const git = runner();
    const repo = repository();
    fs.writeFileSync(path.join(repo, 'staged.txt'), 'the person staged this');
    sh(repo, 'add', 'staged.txt');
    const home = temp.make('wh-home-');
    const first = await createWorktree(git, repo, home, 'Fix the login');
    const second = await createWorktree(git, repo, home, 'Fix the login');
    expect(first.branch).toBe('wheelhouse/fix-the-login');
    expect(second.branch).toBe('wheelhouse/fix-the-login-2');
    expect(first.path.startsWith(home)).toBe(true);
    fs.writeFileSync(path.join(first.path, 'shared.txt'), 'first agent\n');
    fs.writeFileSync(path.join(second.path, 'shared.txt'), 'second agent\n');
    expect(fs.readFileSync(path.join(first.path, 'shared.txt'), 'utf8')).toBe('first agent\n');
    expect(fs.readFileSync(path.join(repo, 'shared.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect(sh(repo, 'status', '--porcelain')).toBe('A  staged.txt');
    expect(sh(repo, 'branch', '--show-current')).toBe('main');
    expect(await readWorktree(git, first.path)).toMatchObject({ baseBranch: 'main', mainRoot: repo, uncommittedPaths: ['shared.txt'] });
  });

  it('merges back by fast-forward, committing what the agent left uncommitted', async () => {
    const git = runner();
    const repo = repository();
    const worktree = await createWorktree(git, repo, temp.make(), 'feature');
    fs.writeFileSync(path.join(worktree.path, 'feature.txt'), 'new\n');
    const outcome = await mergeWorktree(git, worktree.path, 'Add the feature');
    expect(outcome).toMatchObject({ status: 'merged', how: 'fast-forward' });
    expect(fs.readFileSync(path.join(repo, 'feature.txt'), 'utf8')).toBe('new\n');
    expect(sh(repo, 'log', '-1', '--format=%s%n%an')).toBe('Add the feature\nPerson');
  });

  it('merges with a merge commit when both sides moved', async () => {
    const git = runner();
    const repo = repository();
    const worktree = await createWorktree(git, repo, temp.make(), 'feature');
    fs.writeFileSync(path.join(worktree.path, 'feature.txt'), 'new\n');
    fs.writeFileSync(path.join(repo, 'other.txt'), 'person\n');
    sh(repo, 'add', 'other.txt');
    sh(repo, 'commit', '-q', '-m', 'the person moved on');
    const outcome = await mergeWorktree(git, worktree.path, 'Add the feature');
    expect(outcome).toMatchObject({ status: 'merged', how: 'merge-commit' });
    expect(sh(repo, 'rev-list', '--parents', '-n', '1', 'HEAD').split(' ')).toHaveLength(3);
    expect(fs.existsSync(path.join(repo, 'feature.txt'))).toBe(true);
  });

  it('reports a conflict with its files, resolves nothing and leaves the person\'s checkout as it was', async () => {
    const git = runner();
    const repo = repository();
    const worktree = await createWorktree(git, repo, temp.make(), 'clash');
    fs.writeFileSync(path.join(worktree.path, 'shared.txt'), 'agent\n');
    fs.writeFileSync(path.join(repo, 'shared.txt'), 'person\n');
    sh(repo, 'commit', '-q', '-am', 'the person edited it too');
    const head = sh(repo, 'rev-parse', 'HEAD');
    const outcome = await mergeWorktree(git, worktree.path, 'Agent edit');
    expect(outcome).toEqual({ status: 'conflict', files: ['shared.txt'] });
    expect(sh(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(sh(repo, 'status', '--porcelain')).toBe('');
    expect(fs.readFileSync(path.join(repo, 'shared.txt'), 'utf8')).toBe('person\n');
    expect(fs.existsSync(path.join(repo, '.git', 'MERGE_HEAD'))).toBe(false);
  });

  it('refuses to merge while the person\'s checkout is on another branch', async () => {
    const git = runner();
    const repo = repository();
    const worktree = await createWorktree(git, repo, temp.make(), 'feature');
    sh(repo, 'switch', '-q', '-c', 'elsewhere');
    await expect(mergeWorktree(git, worktree.path, 'x')).rejects.toMatchObject({ reason: 'base-not-checked-out' });
    expect(sh(repo, 'log', '-1', '--format=%s')).toBe('first');
  });

  it('discards the worktree and its branch after listing the unmerged commits', async () => {
    const git = runner();
    const repo = repository();
    const worktree = await createWorktree(git, repo, temp.make(), 'throwaway');
    fs.writeFileSync(path.join(worktree.path, 'a.txt'), 'a');
    sh(worktree.path, 'add', 'a.txt');
    sh(worktree.path, 'commit', '-q', '-m', 'agent commit');
    fs.writeFileSync(path.join(worktree.path, 'b.txt'), 'b');
    const before = await readWorktree(git, worktree.path);
    expect(before.unmergedCommits.map((c) => c.subject)).toEqual(['agent commit']);
    expect(before.uncommittedPaths).toEqual(['b.txt']);
    await discardWorktree(git, worktree.path);
    expect(fs.existsSync(worktree.path)).toBe(false);
    expect(sh(repo, 'branch', '--list', 'wheelhouse/*')).toBe('');
    expect(sh(repo, 'config', '--list')).not.toMatch(/wheelhousebase/i);
    await expect(readWorktree(git, worktree.path)).rejects.toBeInstanceOf(WorktreeError);
  });

  it('keeps the branch (with the uncommitted work committed) when the copy is closed', async () => {
    const git = runner();
    const repo = repository();
    const worktree = await createWorktree(git, repo, temp.make(), 'keeper');
    fs.writeFileSync(path.join(worktree.path, 'kept.txt'), 'kept\n');
    await closeWorktreeKeepingBranch(git, worktree.path, 'Work in progress');
    expect(fs.existsSync(worktree.path)).toBe(false);
    expect(sh(repo, 'show', 'wheelhouse/keeper:kept.txt')).toBe('kept');
  });

  it('refuses a plain folder with a typed reason', async () => {
    await expect(createWorktree(runner(), temp.make(), temp.make(), 'x')).rejects.toMatchObject({ reason: 'not-a-repository' });
  });
});
