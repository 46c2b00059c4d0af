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
