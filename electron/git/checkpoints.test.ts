import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessSupervisor } from '../exec/index.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { ChangedSinceError, Checkpoints } from './checkpoints.js';
import { GitRunner } from './git-runner.js';

const temp = new TempDirs();
const supervisors: ProcessSupervisor[] = [];
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.dispose()));
  temp.cleanup();
});

function checkpoints(): Checkpoints {
  const supervisor = new ProcessSupervisor({ logDir: temp.make('wh-git-logs-') });
  supervisors.push(supervisor);
  return new Checkpoints(new GitRunner(supervisor), temp.make('wh-checkpoints-'));
}

function sh(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

const BINARY = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13, 0]);

/** A folder with a text file, a binary file, one to delete and one to rename. */
function fill(dir: string): void {
  fs.writeFileSync(path.join(dir, 'text.txt'), 'one\ntwo\nthree\n');
  fs.writeFileSync(path.join(dir, 'image.bin'), BINARY);
  fs.writeFileSync(path.join(dir, 'doomed.txt'), 'delete me\n');
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'old-name.ts'), 'export const a = 1;\n'.repeat(20));
}

/** What an agent's turn does to it. */
function change(dir: string): void {
  fs.writeFileSync(path.join(dir, 'text.txt'), 'one\nTWO\nthree\nfour\n');
  fs.writeFileSync(path.join(dir, 'image.bin'), Buffer.concat([BINARY, BINARY]));
  fs.rmSync(path.join(dir, 'doomed.txt'));
  fs.renameSync(path.join(dir, 'src', 'old-name.ts'), path.join(dir, 'src', 'new-name.ts'));
  fs.mkdirSync(path.join(dir, 'created', 'deep'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'created', 'deep', 'new.txt'), 'brand new\n');
}

function bytesOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (sub: string) => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const rel = path.join(sub, entry.name);
      if (entry.isDirectory()) walk(rel);
      else out[rel] = fs.readFileSync(path.join(dir, rel)).toString('base64');
    }
  };
  walk('');
  return out;
}

function gitRepository(): string {
  const repo = temp.make('wh-repo-');
  sh(repo, 'init', '-q', '-b', 'main');
  fill(repo);
  sh(repo, 'add', '.');
  sh(repo, '-c', 'user.name=P', '-c', 'user.email=p@p', 'commit', '-q', '-m', 'first');
  return repo;
}

describe.each([
  ['a git repository', gitRepository],
  ['a plain folder', () => {
    const dir = temp.make('wh-folder-');
    fill(dir);
    return dir;
  }],
])('checkpoints in %s', (_name, makeFolder) => {
  it('restores text, binary, deleted, renamed and new files byte for byte', async () => {
    const store = checkpoints();
    const dir = makeFolder();
    const workspace = (await store.workspaceOf(dir))!;
    const original = bytesOf(dir);
    const before = await store.snapshot(workspace);
    await store.save(workspace, 'refs/wheelhouse/checkpoints/t/turn-before', before, 'before');
    change(dir);
    const after = await store.snapshot(workspace);
    const files = await store.changedFiles(workspace, before, after);
    expect(files.map((f) => [f.path, f.status]).sort()).toEqual([
      ['created/deep/new.txt', 'added'],
      ['doomed.txt', 'deleted'],
      ['image.bin', 'modified'],
      ['src/new-name.ts', 'renamed'],
      ['text.txt', 'modified'],
    ]);
    expect(files.find((f) => f.path === 'text.txt')).toMatchObject({ added: 2, removed: 1, binary: false });
    expect(files.find((f) => f.path === 'image.bin')).toMatchObject({ added: null, binary: true });
    expect(files.find((f) => f.path === 'src/new-name.ts')).toMatchObject({ oldPath: 'src/old-name.ts' });
    expect(files.find((f) => f.path === 'text.txt')!.diff).toContain('-two\n+TWO\n');
    expect(await store.treeOf(workspace, 'refs/wheelhouse/checkpoints/t/turn-before')).toBe(before);

    await store.restore(workspace, before, after);
    expect(bytesOf(dir)).toEqual(original);
    expect(fs.existsSync(path.join(dir, 'created'))).toBe(false);
  });

  it('refuses, naming the file, when the person changed it after the turn, and writes nothing', async () => {
    const store = checkpoints();
    const dir = makeFolder();
    const workspace = (await store.workspaceOf(dir))!;
    const before = await store.snapshot(workspace);
    change(dir);
    const after = await store.snapshot(workspace);
    fs.writeFileSync(path.join(dir, 'text.txt'), 'the person rewrote this\n');
    const error = await store.restore(workspace, before, after).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChangedSinceError);
    expect((error as ChangedSinceError).files).toEqual(['text.txt']);
    expect(fs.readFileSync(path.join(dir, 'text.txt'), 'utf8')).toBe('the person rewrote this\n');
    expect(fs.existsSync(path.join(dir, 'created', 'deep', 'new.txt'))).toBe(true);
    // The other files can still be taken back one by one.
    await store.restore(workspace, before, after, ['image.bin']);
    expect(fs.readFileSync(path.join(dir, 'image.bin'))).toEqual(BINARY);
  });
});

describe('checkpoints leave the person\'s repository alone', () => {
  it('never touch the index, the branch or the stash', async () => {
    const store = checkpoints();
    const repo = gitRepository();
    fs.writeFileSync(path.join(repo, 'staged.txt'), 'staged\n');
    sh(repo, 'add', 'staged.txt');
    fs.writeFileSync(path.join(repo, 'text.txt'), 'unstaged edit\n');
    const status = sh(repo, 'status', '--porcelain');
    const workspace = (await store.workspaceOf(repo))!;
    const tree = await store.snapshot(workspace);
    await store.save(workspace, 'refs/wheelhouse/checkpoints/t/x-before', tree, 'before');
    expect(sh(repo, 'status', '--porcelain')).toBe(status);
    expect(sh(repo, 'stash', 'list')).toBe('');
    expect(sh(repo, 'log', '--format=%s', 'main')).toBe('first');
    expect(sh(repo, 'show', `${tree}:text.txt`)).toBe('unstaged edit');
    await store.dropRefs(workspace, 'refs/wheelhouse/checkpoints/t/');
    expect(sh(repo, 'for-each-ref', 'refs/wheelhouse/')).toBe('');
  });
});
