import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliBundle, repoRoot } from './paths.js';

/** Source folders bundled into dist/node/cli.js. */
const SOURCE_DIRS = ['electron', 'shared'];

/**
 * Builds dist/node/cli.js when it is missing or older than any source file,
 * so a standalone `npx vitest run` tests the code in the tree, not a stale bundle.
 */
export function ensureCliBuilt(): void {
  const built = mtimeOf(cliBundle);
  if (built !== undefined && newestSource() <= built) return;
  const result = spawnSync(process.execPath, ['scripts/build.mjs', '--no-renderer'], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    throw new Error(`node scripts/build.mjs --no-renderer failed (exit ${String(result.status)})`);
  }
}

function mtimeOf(file: string): number | undefined {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        newest = Math.max(newest, fs.statSync(full).mtimeMs);
      }
    }
  };
  for (const dir of SOURCE_DIRS) walk(path.join(repoRoot, dir));
  return newest;
}
