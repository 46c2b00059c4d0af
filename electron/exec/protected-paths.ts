import fs from 'node:fs';
import path from 'node:path';

/**
 * Paths a sandboxed command may not change even where its writable roots
 * would let it (Codex keeps `.git` and `.codex` read-only the same way):
 *
 * - the git folders of each workspace: the nearest `.git` at or above the
 *   cwd and each writable root, and when that `.git` is a pointer file (a
 *   worktree, a submodule) the folder it names and that folder's common
 *   folder, where the hooks live. A hook planted there would run outside the
 *   sandbox at the person's next commit. A workspace under /tmp is the case
 *   that matters most: /tmp is itself writable.
 * - `extra` (the Wheelhouse home: its config decides what runs unasked). When
 *   the workspace lies inside such a path, its other entries are protected
 *   instead, so the workspace stays writable.
 *
 * Only paths that exist and lie inside a writable root are returned (the rest
 * are read-only already), as real paths, outermost first.
 */
export function protectedSubpaths(writableRoots: readonly string[], cwd: string, extra: readonly string[]): string[] {
  const roots = writableRoots.map((root) => realOrNull(root)).filter((root): root is string => root !== null);
  const realCwd = realOrNull(cwd) ?? cwd;
  const found = new Set<string>();
  for (const start of [realCwd, ...roots]) {
    for (const gitPath of gitPathsAbove(start)) found.add(gitPath);
  }
  for (const entry of extra) {
    const real = realOrNull(entry);
    if (real === null) continue;
    if (!isInside(realCwd, real)) {
      found.add(real);
      continue;
    }
    for (const child of safeReaddir(real)) {
      const full = path.join(real, child);
      if (!isInside(realCwd, full)) found.add(full);
    }
  }
  return [...found].filter((candidate) => roots.some((root) => isInside(candidate, root))).sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}

/** The `.git` found walking up from `start`, with what a pointer file names (real paths). */
function gitPathsAbove(start: string): string[] {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    const real = realOrNull(dotGit);
    if (real !== null) return [real, ...pointerTargets(real)];
    if (path.dirname(dir) === dir) return [];
  }
}

/** For a `.git` pointer file (`gitdir: <path>`): that folder, and the common folder it shares with the main checkout. */
function pointerTargets(dotGit: string): string[] {
  let gitDir: string | null = null;
  try {
    if (!fs.statSync(dotGit).isFile()) return commonDirOf(dotGit);
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'));
    if (match) gitDir = realOrNull(path.resolve(path.dirname(dotGit), match[1]!));
  } catch {
    return [];
  }
  return gitDir === null ? [] : [gitDir, ...commonDirOf(gitDir)];
}

/** A linked worktree's git folder names the main one's in `commondir`. */
function commonDirOf(gitDir: string): string[] {
  try {
    const common = fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim();
    const real = realOrNull(path.resolve(gitDir, common));
    return real === null ? [] : [real];
  } catch {
    return [];
  }
}

function isInside(candidate: string, root: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function realOrNull(file: string): string | null {
  try {
    return fs.realpathSync(file);
  } catch {
    return null;
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
