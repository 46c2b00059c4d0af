import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { readGitInfo, withoutCredentials } from './git-info.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  }).trim();
}

describe('origin URLs', () => {
  it('never keep a token or user name embedded in an https remote', () => {
    expect(withoutCredentials('https://x-access-token:ghp_secret@github.com/acme/app.git')).toBe('https://github.com/acme/app.git');
    expect(withoutCredentials('https://github.com/acme/app.git')).toBe('https://github.com/acme/app.git');
    expect(withoutCredentials('git@github.com:acme/app.git')).toBe('git@github.com:acme/app.git');
  });
});

describe('readGitInfo', () => {
  it('reads sha, branch and origin in a repository and inside a linked worktree (.git file + commondir)', () => {
    const repo = temp.make('wh-git-');
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'remote', 'add', 'origin', 'https://example.com/acme/app.git');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'first');
    const mainSha = git(repo, 'rev-parse', 'HEAD');
    expect(readGitInfo(repo)).toEqual({ sha: mainSha, branch: 'main', originUrl: 'https://example.com/acme/app.git' });

    const worktree = path.join(temp.make('wh-git-wt-'), 'feature');
    git(repo, 'worktree', 'add', '-q', '-b', 'feature', worktree);
    git(worktree, 'commit', '-q', '--allow-empty', '-m', 'on feature');
    const featureSha = git(worktree, 'rev-parse', 'HEAD');
    expect(featureSha).not.toBe(mainSha);
    expect(readGitInfo(worktree)).toEqual({ sha: featureSha, branch: 'feature', originUrl: 'https://example.com/acme/app.git' });
    // Packed refs too: the branch is then only in the main git dir's packed-refs.
    git(repo, 'pack-refs', '--all');
    expect(readGitInfo(worktree)).toEqual({ sha: featureSha, branch: 'feature', originUrl: 'https://example.com/acme/app.git' });
  });
});
