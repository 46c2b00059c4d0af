import { afterAll, beforeAll } from 'vitest';
import { sshdUnavailable, startSshd, type TestSshd } from './sshd.js';
import { TempDirs } from './temp-dir.js';

/**
 * The test sshd of one test file: started before its tests when this machine has sshd (`set` gets
 * it, or stays unused), stopped after them with its folder. Files skip their tests on
 * `sshdUnavailable()` themselves, so they say why.
 */
export function useTestSshd(set: (sshd: TestSshd) => void): void {
  const folders = new TempDirs();
  let started: TestSshd | undefined;
  beforeAll(async () => {
    if (sshdUnavailable()) return;
    started = await startSshd(folders.make('wheelhouse-sshd-'));
    set(started);
  });
  afterAll(async () => {
    await started?.stop();
    folders.cleanup();
  });
}
