import fs from 'node:fs';
import path from 'node:path';

/** Another live Wheelhouse process owns this home. */
export class HomeInUseError extends Error {
  constructor(
    readonly home: string,
    readonly pid: number,
  ) {
    const owner = pid === process.pid ? 'Another runtime in this process' : `Another Wheelhouse (process ${pid})`;
    super(`${owner} is using ${home}. Close it, or start this one with another home (--home or WHEELHOUSE_HOME).`);
    this.name = 'HomeInUseError';
  }
}

/**
 * Lock files this process holds. A lock naming our own pid is stale only when
 * no runtime of ours holds it (a previous process that had the same pid).
 */
const heldHere = new Set<string>();

/**
 * One runtime per home: two would hand out the same event seqs and each
 * would mark the other's running turns as interrupted. The lock is a file
 * holding the owner's pid; a lock left by a dead process (kill -9) is taken over.
 */
export class HomeLock {
  private constructor(private readonly file: string) {}

  static acquire(home: string): HomeLock {
    const file = path.join(fs.realpathSync(home), 'runtime.lock');
    if (heldHere.has(file)) throw new HomeInUseError(home, process.pid);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
        heldHere.add(file);
        return new HomeLock(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = Number.parseInt(readOrEmpty(file), 10);
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new HomeInUseError(home, owner);
      }
      fs.rmSync(file, { force: true }); // stale: its process is gone
    }
    throw new Error(`could not lock ${home}`);
  }

  release(): void {
    if (!heldHere.delete(this.file)) return;
    try {
      if (readOrEmpty(this.file) === String(process.pid)) fs.rmSync(this.file, { force: true });
    } catch {
      // already gone
    }
  }
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
