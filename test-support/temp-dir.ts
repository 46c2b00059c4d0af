import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Creates temp folders and removes them all at once (call `cleanup` in afterEach). */
export class TempDirs {
  private readonly dirs: string[] = [];

  /** A fresh empty folder under the OS temp dir. */
  make(prefix = 'wheelhouse-test-'): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  cleanup(): void {
    for (const dir of this.dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  }
}
