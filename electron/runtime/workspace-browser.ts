import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  MAX_DIRECTORY_ENTRIES,
  RpcError,
  type DirectoryEntry,
  type DirectoryErrorReason,
  type HandlerParamsOf,
  type ResultOf,
} from '../../shared/protocol/index.js';

export interface WorkspaceBrowserOptions {
  /** The folder listed when no path is given, and the base of `~` and relative paths. */
  readonly home?: string;
}

/**
 * Lists the sub-folders of a folder for the project folder picker. Works the
 * same on every carrier, so the browser host gets a picker too. Folders that
 * cannot be opened (permissions) are still listed; the error comes when one is
 * opened.
 */
export async function listDirectory(
  params: HandlerParamsOf<'workspace/directory/list'>,
  options: WorkspaceBrowserOptions = {},
): Promise<ResultOf<'workspace/directory/list'>> {
  const home = options.home ?? os.homedir();
  const target = resolvePath(params.path ?? null, home);
  let dirents;
  try {
    const stat = await fs.stat(target);
    if (!stat.isDirectory()) throw directoryError('notDirectory', target, `${target} is a file, not a folder`);
    dirents = await fs.readdir(target, { withFileTypes: true });
  } catch (error) {
    if (error instanceof RpcError) throw error;
    throw fromFsError(error, target);
  }
  const folders: DirectoryEntry[] = [];
  for (const dirent of dirents) {
    if (!params.showHidden && dirent.name.startsWith('.')) continue;
    const full = path.join(target, dirent.name);
    if (dirent.isDirectory() || (dirent.isSymbolicLink() && (await isDirectory(full)))) {
      folders.push({ name: dirent.name, path: full });
    }
  }
  folders.sort((a, b) => collator.compare(a.name, b.name));
  const parent = path.dirname(target);
  return {
    path: target,
    parent: parent === target ? null : parent,
    entries: folders.slice(0, MAX_DIRECTORY_ENTRIES),
    truncated: folders.length > MAX_DIRECTORY_ENTRIES,
  };
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** `~`, `~/x` and relative paths resolve against home; the result is absolute and normalised. */
function resolvePath(input: string | null, home: string): string {
  const trimmed = input?.trim() ?? '';
  if (trimmed === '' || trimmed === '~') return path.resolve(home);
  if (trimmed.startsWith('~/') || trimmed.startsWith(`~${path.sep}`)) return path.resolve(home, trimmed.slice(2));
  return path.resolve(home, trimmed);
}

async function isDirectory(full: string): Promise<boolean> {
  try {
    return (await fs.stat(full)).isDirectory();
  } catch {
    return false;
  }
}

function fromFsError(error: unknown, target: string): RpcError {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      return directoryError('notFound', target, `There is no folder at ${target}`);
    case 'ENOTDIR':
      return directoryError('notDirectory', target, `${target} is not a folder`);
    case 'EACCES':
    case 'EPERM':
      return directoryError('unreadable', target, `Wheelhouse is not allowed to open ${target}`);
    default:
      return directoryError(
        'unreadable',
        target,
        `Could not open ${target}: ${error instanceof Error ? error.message : String(error)}`,
      );
  }
}

function directoryError(reason: DirectoryErrorReason, target: string, message: string): RpcError {
  return RpcError.because(`workspace.${reason}`, message, { path: target });
}
