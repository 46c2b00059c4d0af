import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { HomeInUseError, HomeLock } from './home-lock.js';
import { createTestRuntime } from '../../test-support/test-runtime.js';

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

describe('one runtime per home within one process', () => {
  it('refuses a second lock while the first is held, and frees it on release', () => {
    const home = temp.make();
    const first = HomeLock.acquire(home);
    expect(() => HomeLock.acquire(home)).toThrow(HomeInUseError);
    expect(() => HomeLock.acquire(home)).toThrow('Another runtime in this process');
    // The same home by another spelling is the same home.
    expect(() => HomeLock.acquire(path.join(home, '.', '..', path.basename(home)))).toThrow(HomeInUseError);
    first.release();
    first.release();
    const second = HomeLock.acquire(home);
    expect(fs.readFileSync(path.join(home, 'runtime.lock'), 'utf8')).toBe(String(process.pid));
    second.release();
  });

  it('takes over a lock naming this pid that no runtime here holds (left by an earlier process with the same pid)', () => {
    const home = temp.make();
    fs.writeFileSync(path.join(home, 'runtime.lock'), String(process.pid));
    const lock = HomeLock.acquire(home);
    lock.release();
    expect(fs.existsSync(path.join(home, 'runtime.lock'))).toBe(false);
  });
});

describe('two runtimes in one process', () => {
  it('cannot both open one home; the first keeps working and the home opens again after it closes', async () => {
    const home = temp.make();
    const first = createTestRuntime({ home, defaults: { cwd: home } });
    try {
      expect(() => createTestRuntime({ home, defaults: { cwd: home } })).toThrow('Another runtime in this process');
      expect(first.threads.list({}).data).toEqual([]);
    } finally {
      await first.shutdown();
    }
    const again = createTestRuntime({ home, defaults: { cwd: home } });
    await again.shutdown();
  });
});
