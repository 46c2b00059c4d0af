import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { readProcFile } from './proc-file.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

describe('readProcFile', () => {
  it.runIf(process.platform === 'linux')('reads a /proc file that reports a size of 0 whole', () => {
    expect(fs.statSync('/proc/self/cmdline').size).toBe(0);
    expect(readProcFile('/proc/self/cmdline', 'utf8')).toBe(fs.readFileSync('/proc/self/cmdline', 'utf8'));
    expect(readProcFile('/proc/self/stat', 'latin1')).toMatch(new RegExp(`^${process.pid} \\(`));
  });

  it('reads a file larger than its buffer whole, and a smaller one after it without leftovers', () => {
    const dir = temp.make();
    const large = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n');
    fs.writeFileSync(path.join(dir, 'large'), large);
    fs.writeFileSync(path.join(dir, 'small'), 'short');
    expect(large.length).toBeGreaterThan(16_384);
    expect(readProcFile(path.join(dir, 'large'), 'utf8')).toBe(large);
    expect(readProcFile(path.join(dir, 'small'), 'utf8')).toBe('short');
    expect(readProcFile(path.join(dir, 'large'), 'utf8')).toBe(large);
  });

  it('throws for a file that does not exist (a process that has gone)', () => {
    expect(() => readProcFile('/proc/999999999/stat', 'latin1')).toThrow(/ENOENT/);
  });
});
