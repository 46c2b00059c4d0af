import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Resolves `requested` inside `cwd`, following symlinks, and refuses anything
 * that lands outside it — the read-only tools' whole sandbox.
 */
export async function resolveInside(cwd: string, requested: string | undefined): Promise<string> {
  const root = await fs.realpath(cwd);
  const target = path.resolve(root, requested ?? '.');
  let real: string;
  try {
    real = await fs.realpath(target);
  } catch {
    throw new Error(`${displayPath(root, target)} does not exist`);
  }
  if (real !== root && !real.startsWith(root + path.sep)) {
    throw new Error(`${requested} is outside the project folder; only files under ${root} can be read`);
  }
  return real;
}

export function displayPath(root: string, file: string): string {
  const relative = path.relative(root, file);
  return relative === '' ? '.' : relative;
}

/** Folders never worth walking into. */
export const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules', 'dist', 'build', '.venv', '__pycache__', 'target']);

/**
 * Resolves a path to write inside `root` (a realpath), even when it does not
 * exist yet: the deepest existing ancestor is resolved through its symlinks,
 * so neither `../x` nor a symlinked folder can lead a write outside. A
 * dangling symlink is refused, since writing through it lands wherever it points.
 */
export async function resolveWritableInside(root: string, requested: string): Promise<string> {
  const target = path.resolve(root, requested);
  const missing: string[] = [];
  let existing = target;
  for (;;) {
    let present = true;
    try {
      await fs.lstat(existing);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      present = false;
    }
    if (present) break;
    const parent = path.dirname(existing);
    if (parent === existing) break;
    missing.unshift(path.basename(existing));
    existing = parent;
  }
  let real: string;
  try {
    real = await fs.realpath(existing);
  } catch {
    throw new Error(`${requested} goes through a broken symbolic link`);
  }
  const resolved = path.join(real, ...missing);
  // A filesystem root ends with its separator already (`/`).
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  if (resolved === root || !resolved.startsWith(prefix)) {
    throw new Error(`${requested} is outside the project folder; only files under ${root} can be changed`);
  }
  return resolved;
}
