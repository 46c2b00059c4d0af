import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { GitError, type GitRunner } from './git-runner.js';

/** A folder Wheelhouse keeps checkpoints of: a git work tree, or a plain folder backed by a private store in the home. */
export interface CheckpointWorkspace {
  /** The top folder paths are relative to (the work tree's top for a repository). */
  readonly root: string;
  readonly kind: 'git' | 'folder';
  /** Variables that point git at the store (GIT_DIR and GIT_WORK_TREE for a plain folder). */
  readonly env: Readonly<Record<string, string>>;
}

/** One file a change touched, with its unified diff. */
export interface ChangedFile {
  readonly path: string;
  /** The path before a rename; null otherwise. */
  readonly oldPath: string | null;
  readonly status: 'added' | 'deleted' | 'modified' | 'renamed' | 'typeChanged';
  /** Lines added and removed; null for a binary file. */
  readonly added: number | null;
  readonly removed: number | null;
  readonly binary: boolean;
  /** The diff is larger than shown here: `diff` is empty. */
  readonly large: boolean;
  readonly diff: string;
}

/** Restoring was refused: these files changed since the state the change left them in. */
export class ChangedSinceError extends Error {
  constructor(readonly files: readonly string[]) {
    super(`${files.length === 1 ? `${files[0]} was` : `${files.length} files were`} changed after this turn (${files.join(', ')}); nothing was restored.`);
    this.name = 'ChangedSinceError';
  }
}

/** A plain folder with more files than this gets no checkpoints (copying a home folder each turn would take minutes). */
export const MAX_FOLDER_FILES = 20_000;
/** A file's diff past this many characters is marked large and left out. */
export const MAX_FILE_DIFF_CHARS = 256 * 1024;
const NO_HINTS = ['-c', 'core.quotepath=off', '-c', 'diff.noprefix=false', '-c', 'diff.mnemonicPrefix=false', '-c', 'core.autocrlf=false'];
/** Checkpoint commits are Wheelhouse's, never the person's: a fixed identity, so git config is not needed. */
const CHECKPOINT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Wheelhouse',
  GIT_AUTHOR_EMAIL: 'checkpoints@wheelhouse.invalid',
  GIT_COMMITTER_NAME: 'Wheelhouse',
  GIT_COMMITTER_EMAIL: 'checkpoints@wheelhouse.invalid',
};

/**
 * Snapshots of a folder's files as git trees, like Codex's "ghost commits": a commit object
 * on a private ref (`refs/wheelhouse/...`), written through a temporary index so the
 * person's index, branch and stash are never touched. A plain folder gets a private bare
 * store under the home, with the folder as its work tree. One operation at a time per
 * folder: snapshots share the store's index.
 */
export class Checkpoints {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly git: GitRunner,
    /** `<home>/checkpoints`: plain folders' stores and temporary indexes. */
    private readonly dir: string,
  ) {}

  /** Where `cwd`'s checkpoints live; null when it cannot have any (a plain folder that is too large). */
  async workspaceOf(cwd: string): Promise<CheckpointWorkspace | null> {
    const probe = await this.git.run(['rev-parse', '--show-toplevel'], { cwd, okExitCodes: [128] });
    if (probe.exitCode === 0) return { root: probe.stdout.toString('utf8').trim(), kind: 'git', env: {} };
    const root = path.resolve(cwd);
    if (countFilesUpTo(root, MAX_FOLDER_FILES + 1) > MAX_FOLDER_FILES) return null;
    const store = path.join(this.dir, 'folders', `${createHash('sha256').update(root).digest('hex').slice(0, 24)}.git`);
    if (!fs.existsSync(path.join(store, 'HEAD'))) {
      fs.mkdirSync(store, { recursive: true, mode: 0o700 });
      await this.git.run(['init', '-q', '--bare', store], { cwd: root });
    }
    return { root, kind: 'folder', env: { GIT_DIR: store, GIT_WORK_TREE: root } };
  }

  /** The folder's files now, as a tree id (ignored files left out in a repository). */
  snapshot(workspace: CheckpointWorkspace): Promise<string> {
    return this.serial(workspace.root, async () => {
      const index = await this.scratchIndex(workspace);
      try {
        const env = { ...workspace.env, GIT_INDEX_FILE: index };
        await this.git.run(['add', '-A', '--ignore-errors', '--', '.'], { cwd: workspace.root, env, okExitCodes: [1] });
        return await this.git.text(['write-tree'], { cwd: workspace.root, env });
      } finally {
        if (workspace.kind === 'git') fs.rmSync(index, { force: true });
      }
    });
  }

  /** Keeps `tree` under `ref` (a commit object, so git's garbage collection keeps it). */
  async save(workspace: CheckpointWorkspace, ref: string, tree: string, message: string): Promise<void> {
    const env = { ...workspace.env, ...CHECKPOINT_IDENTITY };
    const commit = await this.git.text(['commit-tree', tree, '-m', message], { cwd: workspace.root, env });
    await this.git.run(['update-ref', ref, commit], { cwd: workspace.root, env: workspace.env });
  }

  /** The tree a ref holds; null when there is no such checkpoint. */
  async treeOf(workspace: CheckpointWorkspace, ref: string): Promise<string | null> {
    const found = await this.git.run(['rev-parse', '-q', '--verify', `${ref}^{tree}`], { cwd: workspace.root, env: workspace.env, okExitCodes: [1] });
    return found.exitCode === 0 ? found.stdout.toString('utf8').trim() : null;
  }

  /** Removes every ref under `prefix` (a thread's checkpoints, when its copy is discarded). */
  async dropRefs(workspace: CheckpointWorkspace, prefix: string): Promise<void> {
    const refs = (await this.git.text(['for-each-ref', '--format=%(refname)', prefix], { cwd: workspace.root, env: workspace.env })).split('\n').filter(Boolean);
    if (refs.length === 0) return;
    await this.git.run(['update-ref', '--stdin'], { cwd: workspace.root, env: workspace.env, input: refs.map((ref) => `delete ${ref}\n`).join('') });
  }

  /** The unified diff from one tree to another (what `git diff` prints), optionally for some paths only. */
  async diff(workspace: CheckpointWorkspace, from: string, to: string, paths: readonly string[] = []): Promise<string> {
    const out = await this.git.run([...NO_HINTS, 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', from, to, '--', ...paths], {
      cwd: workspace.root,
      env: workspace.env,
    });
    return out.stdout.toString('utf8');
  }

  /** Every file that differs between two trees, with counts and its own diff. */
  async changedFiles(workspace: CheckpointWorkspace, from: string, to: string): Promise<ChangedFile[]> {
    const call = { cwd: workspace.root, env: workspace.env };
    const [statusOut, numstatOut, patch] = await Promise.all([
      this.git.run([...NO_HINTS, 'diff', '--name-status', '-z', '-M', from, to], call),
      this.git.run([...NO_HINTS, 'diff', '--numstat', '-z', '-M', from, to], call),
      this.diff(workspace, from, to),
    ]);
    const statuses = parseNameStatus(statusOut.stdout.toString('utf8'));
    const counts = parseNumstat(numstatOut.stdout.toString('utf8'));
    const patches = splitPatch(patch);
    // git lists the files in the same order in all three outputs.
    return statuses.map((entry, i) => {
      const count = counts[i];
      const filePatch = patches[i] ?? '';
      const binary = count ? count.added === null : false;
      const large = filePatch.length > MAX_FILE_DIFF_CHARS;
      return { ...entry, added: count?.added ?? null, removed: count?.removed ?? null, binary, large, diff: large ? '' : filePatch };
    });
  }

  /**
   * Puts the files that differ between `before` and `after` back as they were in `before`
   * (files `before` lacks are deleted), only where each is still as `after` left it;
   * otherwise nothing is written and ChangedSinceError names the files. `paths` narrows
   * the restore to some files.
   */
  restore(workspace: CheckpointWorkspace, before: string, after: string, paths?: readonly string[]): Promise<string[]> {
    return this.serial(workspace.root, async () => {
      const call = { cwd: workspace.root, env: workspace.env };
      const touched = splitZ((await this.git.run(['diff', '--name-only', '-z', '--no-renames', before, after, '--', ...(paths ?? [])], call)).stdout);
      if (touched.length === 0) return [];
      const index = this.tempIndex();
      try {
        // The state now of the touched files only: the turn's result with those files read afresh.
        const env = { ...workspace.env, GIT_INDEX_FILE: index };
        await this.git.run(['read-tree', after], { cwd: workspace.root, env });
        await this.git.run(['update-index', '--add', '--remove', '-z', '--stdin'], { cwd: workspace.root, env, input: touched.map((file) => `${file}\0`).join('') });
        const now = await this.git.text(['write-tree'], { cwd: workspace.root, env });
        const changedSince = splitZ((await this.git.run(['diff', '--name-only', '-z', '--no-renames', after, now, '--', ...touched], call)).stdout);
        if (changedSince.length > 0) throw new ChangedSinceError(changedSince);
        const inBefore = new Set(splitZ((await this.git.run(['ls-tree', '-r', '-z', '--name-only', before, '--', ...touched], call)).stdout));
        await this.git.run(['read-tree', before], { cwd: workspace.root, env });
        const toWrite = touched.filter((file) => inBefore.has(file));
        if (toWrite.length > 0) {
          await this.git.run(['checkout-index', '-f', '-z', '--stdin'], { cwd: workspace.root, env, input: toWrite.map((file) => `${file}\0`).join('') });
        }
        for (const file of touched.filter((file) => !inBefore.has(file))) removeAndPrune(workspace.root, file);
        return touched;
      } finally {
        fs.rmSync(index, { force: true });
      }
    });
  }

  /**
   * Takes single hunks back: `patch` (file headers and the hunks to undo, as `diff` printed
   * them) is applied in reverse to the files in the folder, all or none (`git apply -R`,
   * which checks each hunk's lines first). Nothing is staged.
   */
  revertPatch(workspace: CheckpointWorkspace, patch: string): Promise<void> {
    return this.serial(workspace.root, async () => {
      try {
        await this.git.run(['apply', '-R', '--whitespace=nowarn', '-'], { cwd: workspace.root, env: workspace.env, input: patch });
      } catch (error) {
        if (error instanceof GitError) throw new ChangedSinceError(filesOfPatch(patch));
        throw error;
      }
    });
  }

  /** `tree` with `paths` as they are in the folder now (added, changed or removed); every other file as in `tree`. */
  treeWithFilesNow(workspace: CheckpointWorkspace, tree: string, paths: readonly string[]): Promise<string> {
    return this.serial(workspace.root, async () => {
      const index = this.tempIndex();
      try {
        const env = { ...workspace.env, GIT_INDEX_FILE: index };
        await this.git.run(['read-tree', tree], { cwd: workspace.root, env });
        await this.git.run(['update-index', '--add', '--remove', '-z', '--stdin'], { cwd: workspace.root, env, input: paths.map((file) => `${file}\0`).join('') });
        return await this.git.text(['write-tree'], { cwd: workspace.root, env });
      } finally {
        fs.rmSync(index, { force: true });
      }
    });
  }

  /** A copy of the repository's index (fast: stat data says which files need hashing), or the plain folder's own. */
  private async scratchIndex(workspace: CheckpointWorkspace): Promise<string> {
    if (workspace.kind === 'folder') return path.join(workspace.env.GIT_DIR!, 'index');
    const scratch = this.tempIndex();
    const real = await this.git.text(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd: workspace.root });
    if (fs.existsSync(real)) fs.copyFileSync(real, scratch);
    return scratch;
  }

  private tempIndex(): string {
    fs.mkdirSync(path.join(this.dir, 'tmp'), { recursive: true, mode: 0o700 });
    return path.join(this.dir, 'tmp', `${randomUUID()}.index`);
  }

  private serial<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => {});
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return next;
  }
}

function splitZ(out: Buffer): string[] {
  return out.toString('utf8').split('\0').filter(Boolean);
}

const STATUS_WORDS: Record<string, ChangedFile['status']> = { A: 'added', D: 'deleted', M: 'modified', R: 'renamed', C: 'added', T: 'typeChanged' };

function parseNameStatus(text: string): Array<Pick<ChangedFile, 'path' | 'oldPath' | 'status'>> {
  const parts = text.split('\0');
  const entries: Array<Pick<ChangedFile, 'path' | 'oldPath' | 'status'>> = [];
  for (let i = 0; i < parts.length - 1; ) {
    const code = parts[i++]!;
    const status = STATUS_WORDS[code[0]!] ?? 'modified';
    if (code[0] === 'R' || code[0] === 'C') {
      const oldPath = parts[i++]!;
      entries.push({ path: parts[i++]!, oldPath: code[0] === 'R' ? oldPath : null, status });
    } else {
      entries.push({ path: parts[i++]!, oldPath: null, status });
    }
  }
  return entries;
}

function parseNumstat(text: string): Array<{ added: number | null; removed: number | null }> {
  const parts = text.split('\0');
  const counts: Array<{ added: number | null; removed: number | null }> = [];
  for (let i = 0; i < parts.length - 1; ) {
    const [added, removed, name] = parts[i++]!.split('\t');
    // A rename has an empty name here, then its two paths.
    if (name === '') i += 2;
    counts.push({ added: added === '-' ? null : Number(added), removed: removed === '-' ? null : Number(removed) });
  }
  return counts;
}

/** The files a patch touches (its `+++ b/` lines). */
function filesOfPatch(patch: string): string[] {
  return [...new Set([...patch.matchAll(/^\+\+\+ b\/(.*)$/gm)].map((match) => match[1]!))];
}

/** One file's diff cut at its hunks: the header (`diff --git` … `+++`), then each hunk from its `@@` line. */
export function hunksOf(fileDiff: string): { readonly header: string; readonly hunks: readonly string[] } {
  const first = fileDiff.search(/^@@ /m);
  if (first < 0) return { header: fileDiff, hunks: [] };
  return { header: fileDiff.slice(0, first), hunks: fileDiff.slice(first).split(/^(?=@@ )/m) };
}

/** Splits `git diff` output into one piece per file. */
function splitPatch(patch: string): string[] {
  if (!patch) return [];
  return patch.split(/^(?=diff --git )/m).filter((piece) => piece.startsWith('diff --git '));
}

function removeAndPrune(root: string, file: string): void {
  const full = path.join(root, file);
  fs.rmSync(full, { force: true });
  // Folders the change created and left empty go too, as git would leave them.
  for (let dir = path.dirname(full); dir.startsWith(root + path.sep); dir = path.dirname(dir)) {
    try {
      fs.rmdirSync(dir);
    } catch {
      return;
    }
  }
}

/** Counts files under `root` (not following links, skipping .git), stopping at `limit`. */
function countFilesUpTo(root: string, limit: number): number {
  let count = 0;
  const stack = [root];
  while (stack.length > 0 && count < limit) {
    const dir = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name === '.git') continue;
      if (entry.isDirectory()) stack.push(path.join(dir, entry.name));
      else count++;
      if (count >= limit) break;
    }
  }
  return count;
}
