import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { cliBin, repoRoot } from '../../test-support/paths.js';
import { TempDirs } from '../../test-support/temp-dir.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

function wheelhouse(...args: string[]) {
  const result = spawnSync(process.execPath, [cliBin, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, WHEELHOUSE_HOME: temp.make() },
    timeout: 15_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the wheelhouse command', () => {
  it('prints its version', () => {
    const { code, stdout } = wheelhouse('--version');
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('prints usage for --help', () => {
    const { code, stdout } = wheelhouse('--help');
    expect(code).toBe(0);
    expect(stdout).toContain('app-server');
    expect(stdout).toContain('serve');
  });

  it('refuses an unknown command or option with exit code 2 and says why', () => {
    const unknown = wheelhouse('launch-rockets');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('launch-rockets');
    const option = wheelhouse('serve', '--colour', 'blue');
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('colour');
  });

  it('refuses a port out of range with exit code 2', () => {
    for (const port of ['70000', '-1', 'eighty']) {
      const { code, stderr } = wheelhouse('serve', '--port', port);
      expect(code).toBe(2);
      expect(stderr).toContain('--port');
    }
  });
});
