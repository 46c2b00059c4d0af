import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { HomeInUseError, HomeLock } from './home-lock.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

describe('one runtime per home', () => {
  it('refuses a home locked by a live process, naming it, and takes over a lock left by a dead one', async () => {
    const home = temp.make();
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    fs.writeFileSync(path.join(home, 'runtime.lock'), String(holder.pid));
    try {
      expect(() => HomeLock.acquire(home)).toThrow(HomeInUseError);
      expect(() => HomeLock.acquire(home)).toThrow(`process ${holder.pid}`);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
    }
    const lock = HomeLock.acquire(home);
    expect(fs.readFileSync(path.join(home, 'runtime.lock'), 'utf8')).toBe(String(process.pid));
    lock.release();
    expect(fs.existsSync(path.join(home, 'runtime.lock'))).toBe(false);
  });
});
