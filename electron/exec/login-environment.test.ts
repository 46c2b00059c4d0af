import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, collect } from '../../test-support/exec.js';
import { waitUntil } from '../../test-support/waiting.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { resolveLoginEnvironment } from './login-environment.js';
import { ProcessSupervisor } from './supervisor.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

/** A home whose login files add a bin folder to PATH and chatter on stdout, like real dotfiles do. */
function homeWithProfile(profile: string): { home: string; bin: string } {
  const home = temp.make('wheelhouse-home-');
  const bin = path.join(home, 'tools', 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'wh-installed-tool'), '#!/bin/sh\necho "installed tool ran in $(pwd)"\n', { mode: 0o755 });
  fs.writeFileSync(path.join(home, '.bash_profile'), profile);
  fs.writeFileSync(path.join(home, '.bashrc'), 'echo "welcome banner from bashrc"\nexport WH_FROM_BASHRC=yes\n');
  return { home, bin };
}

/** What a double-clicked app inherits: no user PATH entries. */
const bareEnv = (home: string) => ({ HOME: home, PATH: '/usr/bin:/bin', SHELL: '/bin/bash', ELECTRON_RUN_AS_NODE: '1' });

describe('login environment', () => {
  it('takes PATH and variables from the login shell, ignoring what the dotfiles print', async () => {
    const { home, bin } = homeWithProfile(
      `echo "motd: hello"\nexport PATH="${path.join('$HOME', 'tools', 'bin')}:$PATH"\nexport WH_LOGIN_ONLY="a b=c"\n. "$HOME/.bashrc"\n`,
    );
    const login = await resolveLoginEnvironment({ baseEnv: bareEnv(home), timeoutMs: 20_000 });
    expect(login.source).toBe('login-shell');
    expect(login.note).toBeNull();
    expect(login.shell).toBe('/bin/bash');
    expect(login.env.PATH!.split(':')[0]).toBe(bin);
    expect(login.env.WH_LOGIN_ONLY).toBe('a b=c');
    expect(login.env.WH_FROM_BASHRC).toBe('yes');
    expect(login.env.ELECTRON_RUN_AS_NODE).toBeUndefined();
    expect(login.env.SHLVL).toBeUndefined();

    // A command the user installed under ~/tools/bin is found by a supervised command.
    const supervisor = new ProcessSupervisor({ logDir: temp.make(), loginEnvironment: async () => login });
    const cwd = temp.make();
    const child = await supervisor.spawn({ command: ['wh-installed-tool'], cwd, tty: false });
    const seen = collect(child);
    expect((await child.exited).exitCode).toBe(0);
    expect(seen.text()).toBe(`installed tool ran in ${fs.realpathSync(cwd)}\n`);
    const viaShell = await supervisor.spawn({ command: 'wh-installed-tool && echo "$WH_LOGIN_ONLY"', cwd, tty: false });
    const shellSeen = collect(viaShell);
    expect((await viaShell.exited).exitCode).toBe(0);
    expect(shellSeen.text()).toContain('a b=c\n');
    await supervisor.dispose();
  });

  it('falls back to the app environment with a note when the shell hangs, and kills what it started', async () => {
    const { home } = homeWithProfile(`sleep 300 & echo "pid:$!" > "$HOME/sleeper"\nsleep 300\n`);
    const login = await resolveLoginEnvironment({ baseEnv: bareEnv(home), timeoutMs: 3000 });
    expect(login.source).toBe('process');
    expect(login.note).toMatch(/did not print its environment within 3000 ms/);
    expect(login.env.PATH).toBe('/usr/bin:/bin');
    expect(login.env.ELECTRON_RUN_AS_NODE).toBeUndefined();
    const sleeper = Number(fs.readFileSync(path.join(home, 'sleeper'), 'utf8').trim().replace('pid:', ''));
    await waitUntil(() => alive([sleeper]).length === 0, { what: 'the hanging profile to be killed' });
  });

  it('falls back with a note when the shell cannot start', async () => {
    const home = temp.make();
    const login = await resolveLoginEnvironment({ shell: path.join(home, 'no-such-shell'), baseEnv: bareEnv(home) });
    expect(login.source).toBe('process');
    expect(login.note).toMatch(/could not start/);
  });
});
