import { homePaths } from '../runtime/home.js';
import { HomeLock } from '../runtime/home-lock.js';
import { ensurePrivateDir } from '../store/private-files.js';

/** Creates the home folder (owner-only) and takes its lock: one runtime per home. Throws HomeInUseError if taken. */
export function lockHome(home: string): HomeLock {
  const paths = homePaths(home);
  ensurePrivateDir(paths.home);
  return HomeLock.acquire(paths.home);
}
