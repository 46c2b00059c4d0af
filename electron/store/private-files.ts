import fs from 'node:fs';

/**
 * The home holds conversations, config and (in headless setups) names of key
 * variables: readable by its owner only. Modes are set when created and
 * tightened when found looser, since older builds created them 0755/0644.
 * (Windows has no POSIX modes; chmod there only toggles read-only, so it is skipped.)
 */

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

const posix = process.platform !== 'win32';

/** Creates `dir` (and parents) if missing, then makes `dir` itself 0700. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  tighten(dir, PRIVATE_DIR_MODE);
}

/** Creates `file` empty with 0600 if missing; tightens it to 0600 if it exists with a looser mode. */
export function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  tighten(file, PRIVATE_FILE_MODE);
}

/** Tightens `file` to 0600 when it exists; a missing file is fine. */
export function tightenIfPresent(file: string): void {
  try {
    tighten(file, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function tighten(target: string, mode: number): void {
  if (!posix) return;
  const current = fs.statSync(target).mode & 0o777;
  // Only ever removes bits: a stricter mode the owner chose is kept.
  if ((current & ~mode) !== 0) fs.chmodSync(target, current & mode);
}
