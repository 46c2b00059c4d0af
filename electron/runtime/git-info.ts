import fs from 'node:fs';
import path from 'node:path';
import type { GitInfo } from '../../shared/protocol/index.js';

/**
 * Reads branch, commit and origin of the repository containing `cwd` straight
 * from `.git` (no child process, so it is cheap enough for thread/start).
 */
export function readGitInfo(cwd: string): GitInfo | null {
  const gitDir = findGitDir(cwd);
  if (!gitDir) return null;
  try {
    // A linked worktree (`git worktree add`) keeps only HEAD in its own git dir;
    // branches, packed refs and config live in the main one named by `commondir`.
    const commonDir = readCommonDir(gitDir);
    const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    let branch: string | null = null;
    let sha: string | null = null;
    if (head.startsWith('ref: ')) {
      const ref = head.slice(5);
      branch = ref.replace(/^refs\/heads\//, '');
      sha = readRef(gitDir, ref) ?? (commonDir === gitDir ? null : readRef(commonDir, ref));
    } else {
      sha = head;
    }
    return { sha, branch, originUrl: readOriginUrl(commonDir) };
  } catch {
    return null;
  }
}

function readCommonDir(gitDir: string): string {
  try {
    const pointer = fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim();
    return pointer ? path.resolve(gitDir, pointer) : gitDir;
  } catch {
    return gitDir;
  }
}

function findGitDir(start: string): string | null {
  let dir = path.resolve(start);
  for (;;) {
    const candidate = path.join(dir, '.git');
    try {
      const stat = fs.statSync(candidate);
      if (stat.isDirectory()) return candidate;
      if (stat.isFile()) {
        const pointer = fs.readFileSync(candidate, 'utf8').match(/^gitdir:\s*(.+)$/m);
        if (pointer?.[1]) return path.resolve(dir, pointer[1].trim());
      }
    } catch {
      // not here; keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function readRef(gitDir: string, ref: string): string | null {
  try {
    return fs.readFileSync(path.join(gitDir, ref), 'utf8').trim();
  } catch {
    try {
      const packed = fs.readFileSync(path.join(gitDir, 'packed-refs'), 'utf8');
      const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
      return line ? line.split(' ')[0]! : null;
    } catch {
      return null;
    }
  }
}

function readOriginUrl(gitDir: string): string | null {
  try {
    const config = fs.readFileSync(path.join(gitDir, 'config'), 'utf8');
    const section = config.split(/^\[/m).find((s) => s.startsWith('remote "origin"]'));
    const url = section?.match(/^\s*url\s*=\s*(.+)$/m)?.[1]?.trim();
    return url ? withoutCredentials(url) : null;
  } catch {
    return null;
  }
}

/** Removes a user name and token from an https remote, so they are never stored or broadcast. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url; // scp-like remotes (git@host:path) carry no secret
  }
}

/**
 * The person's checkout a folder belongs to: for a linked worktree, the main checkout
 * (where its `commondir` points); for a plain checkout, its top folder; null outside git.
 * Read from `.git` without a child process, so listing projects stays cheap.
 */
export function readMainCheckout(cwd: string): string | null {
  const gitDir = findGitDir(cwd);
  if (!gitDir) return null;
  const commonDir = readCommonDir(gitDir);
  return path.basename(commonDir) === '.git' ? path.dirname(commonDir) : null;
}
