import { WorkspaceFilesError, type WorkspaceFiles } from '../../files/workspace-files.js';

/**
 * Resolves `requested` inside `cwd` on the machine `files` reaches,
 * following symlinks there, and refuses anything that lands outside it —
 * the read-only tools' whole sandbox.
 */
export async function resolveInside(files: WorkspaceFiles, cwd: string, requested: string | undefined): Promise<string> {
  const { paths } = files;
  const root = await files.realpath(cwd);
  const target = paths.resolve(root, requested ?? '.');
  let real: string;
  try {
    real = await files.realpath(target);
  } catch (error) {
    if (error instanceof WorkspaceFilesError && error.code !== 'missing') throw error;
    throw new Error(`${displayPath(files, root, target)} does not exist`);
  }
  if (real !== root && !real.startsWith(root + paths.sep)) {
    throw new Error(`${requested} is outside the project folder; only files under ${root} can be read`);
  }
  return real;
}

export function displayPath(files: WorkspaceFiles, root: string, file: string): string {
  const relative = files.paths.relative(root, file);
  return relative === '' ? '.' : relative;
}

/** Folders never worth walking into. */
export const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules', 'dist', 'build', '.venv', '__pycache__', 'target']);

/**
 * Resolves a path to write inside `root` (a realpath), even when it does not
 * exist yet: the deepest existing ancestor is resolved through its symlinks
 * (on the machine the files are on), so neither `../x` nor a symlinked
 * folder can lead a write outside. A dangling symlink is refused, since
 * writing through it lands wherever it points.
 */
export async function resolveWritableInside(files: WorkspaceFiles, root: string, requested: string): Promise<string> {
  const { paths } = files;
  const target = paths.resolve(root, requested);
  const missing: string[] = [];
  let existing = target;
  while ((await files.lstat(existing)) === null) {
    const parent = paths.dirname(existing);
    if (parent === existing) break;
    missing.unshift(paths.basename(existing));
    existing = parent;
  }
  let real: string;
  try {
    real = await files.realpath(existing);
  } catch (error) {
    if (error instanceof WorkspaceFilesError && error.code !== 'missing') throw error;
    throw new Error(`${requested} goes through a broken symbolic link`);
  }
  const resolved = paths.join(real, ...missing);
  // A filesystem root ends with its separator already (`/`).
  const prefix = root.endsWith(paths.sep) ? root : root + paths.sep;
  if (resolved === root || !resolved.startsWith(prefix)) {
    throw new Error(`${requested} is outside the project folder; only files under ${root} can be changed`);
  }
  return resolved;
}
