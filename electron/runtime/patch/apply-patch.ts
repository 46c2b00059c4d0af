import { randomBytes } from 'node:crypto';
import { WorkspaceFilesError, type WorkspaceFiles } from '../../files/workspace-files.js';
import { resolveWritableInside } from '../tools/workspace-path.js';
import { HunkMismatchError, applyReplacements, locateChunks, unifiedDiff } from './patch-hunks.js';
import { parsePatch, type PatchHunk } from './patch-parser.js';

/**
 * Applies a Codex `*** Begin Patch` patch inside a workspace, on whichever
 * machine its `WorkspaceFiles` reach: every change is computed and checked
 * against the current files first, and files are written only when all of
 * it applies — otherwise nothing changes and the error says which file and
 * hunk failed.
 */

/** Codex's `v2/FileUpdateChange` (what `fileChange` items and approval requests carry). */
export interface FileUpdateChange {
  readonly path: string;
  readonly kind: { readonly type: 'add' } | { readonly type: 'delete' } | { readonly type: 'update'; readonly move_path: string | null };
  /** add: the new content; delete: the removed content; update: unified diff hunks. */
  readonly diff: string;
}

export type PatchErrorCode = 'invalid_patch' | 'path_outside_workspace' | 'file_not_found' | 'hunk_mismatch' | 'write_failed' | 'connection_lost';

export class PatchError extends Error {
  constructor(
    readonly code: PatchErrorCode,
    message: string,
    readonly details: { readonly path?: string; readonly hunkIndex?: number; readonly expected?: readonly string[]; readonly line?: number } = {},
  ) {
    super(message);
    this.name = 'PatchError';
  }
}

export interface PreparedPatch {
  readonly changes: readonly FileUpdateChange[];
  /** Final content per real path; null deletes. */
  readonly writes: ReadonlyMap<string, string | null>;
}

export interface PatchOptions {
  /** Paths may lead outside the workspace (the thread runs danger-full-access); relative paths still start there. */
  readonly outsideAllowed?: boolean;
}

/** Parses and checks a patch against the files in `workspace` without writing anything. */
export async function preparePatch(files: WorkspaceFiles, workspace: string, patchText: string, options: PatchOptions = {}): Promise<PreparedPatch> {
  try {
    return await checkPatch(files, workspace, patchText, options);
  } catch (error) {
    throw asPatchError(error);
  }
}

async function checkPatch(files: WorkspaceFiles, workspace: string, patchText: string, options: PatchOptions): Promise<PreparedPatch> {
  const path = files.paths;
  let hunks: PatchHunk[];
  try {
    hunks = parsePatch(patchText);
  } catch (error) {
    const line = (error as { line?: number }).line;
    throw new PatchError('invalid_patch', (error as Error).message, line === undefined ? {} : { line });
  }
  const workspaceRoot = await files.realpath(workspace);
  const limit = options.outsideAllowed ? path.parse(workspaceRoot).root : workspaceRoot;
  const resolve = (_root: string, requested: string) => resolveIn(files, limit, path.resolve(workspaceRoot, requested), requested);
  const root = workspaceRoot;
  const virtual = new VirtualFiles(files);
  const changes: FileUpdateChange[] = [];
  for (const hunk of hunks) {
    const target = await resolve(root, hunk.path);
    if (hunk.kind === 'add') {
      virtual.write(target, hunk.contents);
      changes.push({ path: target, kind: { type: 'add' }, diff: hunk.contents });
    } else if (hunk.kind === 'delete') {
      const content = await virtual.read(target, hunk.path);
      // Deleting a symlink removes the link itself, not the file it points to.
      const entry = await linkEntry(files, root, hunk.path, resolve);
      virtual.write(entry ?? target, null);
      changes.push({ path: entry ?? target, kind: { type: 'delete' }, diff: content });
    } else {
      const original = await virtual.read(target, hunk.path);
      const text = splitText(original);
      let replacements;
      try {
        replacements = locateChunks(text.lines, hunk.chunks);
      } catch (error) {
        if (!(error instanceof HunkMismatchError)) throw error;
        throw new PatchError(
          'hunk_mismatch',
          `hunk ${error.hunkIndex} of ${hunk.path} does not apply: ${error.message}:\n${error.expected.join('\n')}`,
          { path: hunk.path, hunkIndex: error.hunkIndex, expected: error.expected, line: hunk.chunks[error.hunkIndex - 1]!.line },
        );
      }
      const updated = joinText(applyReplacements(text.lines, replacements), text.newline);
      const destination = hunk.movePath === null ? target : await resolve(root, hunk.movePath);
      if (destination !== target) virtual.write(target, null);
      virtual.write(destination, updated);
      changes.push({
        path: target,
        kind: { type: 'update', move_path: destination === target ? null : destination },
        diff: unifiedDiff(text.lines, replacements),
      });
    }
  }
  return { changes, writes: virtual.pending };
}

/** Checks the whole patch, then writes it; returns the change descriptions for the `fileChange` item. */
export async function applyPatch(files: WorkspaceFiles, workspace: string, patchText: string, options: PatchOptions = {}): Promise<readonly FileUpdateChange[]> {
  const prepared = await preparePatch(files, workspace, patchText, options);
  await commitWrites(files, prepared.writes);
  return prepared.changes;
}

/** A dropped connection is a PatchError of its own; the rest pass unchanged. */
function asPatchError(error: unknown): unknown {
  if (error instanceof WorkspaceFilesError && error.code === 'lost') return new PatchError('connection_lost', error.message);
  return error;
}

async function resolveIn(files: WorkspaceFiles, limit: string, target: string, shown: string): Promise<string> {
  try {
    return await resolveWritableInside(files, limit, target);
  } catch (error) {
    if (error instanceof WorkspaceFilesError) throw error;
    const message = (error as Error).message.replace(target, shown);
    throw new PatchError('path_outside_workspace', message, { path: shown });
  }
}

/** The path of the symlink itself when `requested` names one (inside the workspace), else null. */
async function linkEntry(files: WorkspaceFiles, root: string, requested: string, resolve: (root: string, requested: string) => Promise<string>): Promise<string | null> {
  const path = files.paths;
  const parent = path.resolve(root, path.dirname(requested));
  const folder = parent === root ? root : await resolve(root, parent);
  const entry = path.join(folder, path.basename(requested));
  const facts = await files.lstat(entry);
  return facts?.kind === 'symlink' ? entry : null;
}

/** Files as the patch leaves them so far, so later hunks see earlier ones. */
class VirtualFiles {
  readonly pending = new Map<string, string | null>();

  constructor(private readonly files: WorkspaceFiles) {}

  async read(file: string, shown: string): Promise<string> {
    if (this.pending.has(file)) {
      const content = this.pending.get(file);
      if (content === null || content === undefined) throw new PatchError('file_not_found', `${shown} was deleted earlier in this patch`, { path: shown });
      return content;
    }
    const facts = await this.files.stat(file);
    if (facts === null) throw new PatchError('file_not_found', `${shown} does not exist`, { path: shown });
    if (facts.kind !== 'file') throw new PatchError('file_not_found', `${shown} is not a regular file`, { path: shown });
    return (await this.files.readFile(file)).toString('utf8');
  }

  write(file: string, content: string | null): void {
    this.pending.set(file, content);
  }
}

/** A file's lines without their endings, and which ending it uses (CRLF files stay CRLF). */
function splitText(content: string): { lines: string[]; newline: '\n' | '\r\n' } {
  const newline = content.includes('\r\n') ? '\r\n' : '\n';
  const lines = content.split('\n').map((line) => (newline === '\r\n' ? line.replace(/\r$/, '') : line));
  if (lines[lines.length - 1] === '') lines.pop();
  return { lines, newline };
}

function joinText(lines: readonly string[], newline: string): string {
  return lines.length === 0 ? '' : `${lines.join(newline)}${newline}`;
}

/**
 * Stages every new content in a temp file beside its target, then renames
 * them into place and removes deleted files. A failure while staging (a full
 * disk, a dropped connection) removes the temp files it can and leaves every
 * target as it was; each rename replaces a whole file, so a connection lost
 * among the renames leaves every file whole, old or new, and the error names
 * which ones were changed.
 */
async function commitWrites(files: WorkspaceFiles, writes: ReadonlyMap<string, string | null>): Promise<void> {
  const path = files.paths;
  const staged: { temp: string; target: string }[] = [];
  try {
    for (const [target, content] of writes) {
      if (content === null) continue;
      await files.makeDirectory(path.dirname(target));
      const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.patch-tmp`);
      const mode = (await files.stat(target))?.mode ?? 0o644;
      staged.push({ temp, target });
      await files.writeNew(temp, Buffer.from(content, 'utf8'), mode);
    }
  } catch (error) {
    // After a drop this reconnects when it can; a temp file it cannot reach stays, named *.patch-tmp.
    await Promise.all(staged.map(({ temp }) => files.remove(temp).catch(() => undefined)));
    if (error instanceof WorkspaceFilesError && error.code === 'lost') throw new PatchError('connection_lost', `${error.message}; no file was changed`);
    throw new PatchError('write_failed', `could not write the patched files: ${(error as Error).message}`);
  }
  const done: string[] = [];
  const step = async (target: string, act: () => Promise<void>) => {
    try {
      await act();
      done.push(target);
    } catch (error) {
      const changed = done.length > 0 ? `only these were changed: ${done.join(', ')}` : 'no file was changed';
      throw new PatchError(error instanceof WorkspaceFilesError && error.code === 'lost' ? 'connection_lost' : 'write_failed', `${(error as Error).message} while putting ${target} in place; every file is whole, and ${changed}`);
    }
  };
  for (const { temp, target } of staged) await step(target, () => files.rename(temp, target));
  for (const [target, content] of writes) {
    if (content === null) await step(target, () => files.remove(target));
  }
}
