import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../../test-support/exec.js';
import { resolveLoginEnvironment } from './login-environment.js';
import { detectSandbox } from './sandbox.js';
import { ProcessSupervisor } from './supervisor.js';
import type { SandboxPolicy, SandboxStatus } from './types.js';

/**
 * The escapes of issue 16, each tried for real under bubblewrap. Run as root
 * (as here and in CI) they are the ones that matter: a sandbox that keeps
 * root's capabilities can remount `/` read-write. "Outside" folders live in
 * /var/tmp, which no sandbox makes writable.
 */
const asRoot = process.getuid?.() === 0;
const status: SandboxStatus = await detectSandbox(process.env.PATH);
const unavailable = status.available ? null : status.reason;
if (unavailable) console.warn(`sandbox escape tests skipped: ${unavailable}`);
const scratch = fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir();
const hasPython = (() => {
  try {
    execFileSync('python3', ['-c', '']);
    return true;
  } catch {
    return false;
  }
})();

const made: string[] = [];
function dir(parent: string, prefix: string): string {
  const created = fs.mkdtempSync(path.join(parent, prefix));
  made.push(created);
  return created;
}
afterEach(() => {
  for (const created of made.splice(0)) fs.rmSync(created, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=sandbox@example.invalid', '-c', 'user.name=Sandbox', ...args], { cwd, encoding: 'utf8' });

function repo(parent: string): string {
  const workspace = dir(parent, 'ws-');
  git(workspace, 'init', '-q');
  git(workspace, 'commit', '-q', '--allow-empty', '-m', 'first');
  return workspace;
}

const supervisors: ProcessSupervisor[] = [];
afterAll(async () => {
  await Promise.all(supervisors.map((supervisor) => supervisor.dispose()));
});

function newSupervisor(options: { protectedPaths?: string[]; pathPrefix?: string } = {}): ProcessSupervisor {
  const supervisor = new ProcessSupervisor({
    logDir: dir(scratch, 'wh-escape-logs-'),
    ...(options.protectedPaths ? { protectedPaths: options.protectedPaths } : {}),
    ...(options.pathPrefix
      ? {
          loginEnvironment: async () => {
            const login = await resolveLoginEnvironment({ shell: '/bin/sh' });
            return { ...login, env: { ...login.env, PATH: `${options.pathPrefix}:${login.env.PATH ?? ''}` } };
          },
        }
      : {}),
  });
  supervisors.push(supervisor);
  return supervisor;
}

async function run(supervisor: ProcessSupervisor, command: string, cwd: string, sandbox: SandboxPolicy = { mode: 'workspace-write' }, env?: Record<string, string>) {
  const child = await supervisor.spawn({ command: ['sh', '-c', command], cwd, sandbox, tty: false, ...(env ? { env } : {}) });
  const seen = collect(child);
  const exit = await child.exited;
  return { exit, text: seen.text() };
}

/** The root escape of the issue: remount `/` read-write, then write outside the writable roots. */
const REMOUNT_AND_WRITE = (target: string) =>
  [
    'grep CapEff /proc/self/status',
    'mount -o remount,rw,bind / && echo "remount:DONE"',
    'mount -t tmpfs none /mnt && echo "mount:DONE"',
    `echo escaped > ${target} && echo "write:DONE"`,
    'exit 0',
  ].join('; ');

/** A git hook planted in the workspace's repository, which would run outside the sandbox at the next commit. */
const PLANT_HOOK = 'echo "touch /var/tmp/pwned" > .git/hooks/pre-commit && echo "hook:PLANTED"; echo x >> .git/config && echo "config:CHANGED"; exit 0';

describe.skipIf(unavailable !== null)(`the sandbox holds${asRoot ? ' as root' : ''}`, () => {
  let supervisor: ProcessSupervisor;
  beforeAll(() => {
    supervisor = newSupervisor();
  });

  it('no capabilities inside: mount is refused and nothing outside the writable roots can be written', async () => {
    const workspace = dir(os.tmpdir(), 'ws-');
    const outside = dir(scratch, 'out-');
    for (const mode of ['workspace-write', 'read-only'] as const) {
      const result = await run(supervisor, REMOUNT_AND_WRITE(path.join(outside, 'f')), workspace, { mode });
      expect(result.text).toMatch(/CapEff:\s*0{16}/);
      expect(result.text).not.toContain(':DONE');
      expect(fs.existsSync(path.join(outside, 'f'))).toBe(false);
    }
  });

  it('.git stays read-only when the workspace lives under /tmp', async () => {
    const workspace = repo(os.tmpdir());
    const result = await run(supervisor, PLANT_HOOK, workspace);
    expect(result.text).toMatch(/Read-only file system/);
    expect(result.text).not.toMatch(/PLANTED|CHANGED/);
    expect(fs.existsSync(path.join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
    // The rest of the workspace stays writable.
    expect((await run(supervisor, 'echo ok > file.txt && echo "file:ok"', workspace)).text).toContain('file:ok');
  });

  it('.git stays read-only when the workspace lives under $TMPDIR, and from a subfolder of the repository', async () => {
    const tmpdir = dir(scratch, 'tmpdir-');
    const workspace = repo(tmpdir);
    const sub = path.join(workspace, 'src');
    fs.mkdirSync(sub);
    const result = await run(supervisor, PLANT_HOOK.replaceAll('.git/', '../.git/'), sub, { mode: 'workspace-write', writableRoots: [sub] }, { TMPDIR: tmpdir });
    expect(result.text).not.toMatch(/PLANTED|CHANGED/);
    expect(fs.existsSync(path.join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
    // $TMPDIR itself is writable.
    expect((await run(supervisor, `echo t > ${tmpdir}/t.txt && echo "tmpdir:ok"`, sub, { mode: 'workspace-write' }, { TMPDIR: tmpdir })).text).toContain('tmpdir:ok');
  });

  it('a linked worktree under /tmp cannot reach the hooks of its main repository', async () => {
    const main = repo(os.tmpdir());
    const worktree = path.join(dir(os.tmpdir(), 'wt-'), 'linked');
    git(main, 'worktree', 'add', '-q', worktree);
    const result = await run(
      supervisor,
      `echo x > ${main}/.git/hooks/pre-commit && echo "hook:PLANTED"; echo x > ${main}/.git/worktrees/linked/HEAD && echo "head:CHANGED"; echo x > .git && echo "pointer:CHANGED"; exit 0`,
      worktree,
    );
    expect(result.text).not.toMatch(/PLANTED|CHANGED/);
    expect(fs.existsSync(path.join(main, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(git(worktree, 'status', '--short')).toBe('');
  });

  it('a protected .git cannot be moved away with its repository, nor the workspace swapped for a look-alike', async () => {
    const parent = dir(os.tmpdir(), 'nest-');
    const workspace = path.join(parent, 'project');
    fs.mkdirSync(workspace);
    git(workspace, 'init', '-q');
    const sub = path.join(workspace, 'src');
    fs.mkdirSync(sub);
    const result = await run(
      supervisor,
      `cd ${parent} && mv project moved && echo "repo:MOVED"; cd / && mv ${parent} ${parent}-moved && echo "parent:MOVED"; mv ${sub} ${sub}-moved && echo "cwd:MOVED"; exit 0`,
      sub,
      { mode: 'workspace-write', writableRoots: [sub] },
    );
    expect(result.text).not.toContain(':MOVED');
    expect(fs.existsSync(path.join(workspace, '.git', 'HEAD'))).toBe(true);
    expect(fs.existsSync(sub)).toBe(true);
  });

  it('the Wheelhouse home stays read-only inside a writable root; a workspace inside the home stays writable', async () => {
    const home = dir(os.tmpdir(), 'wh-home-');
    fs.writeFileSync(path.join(home, 'config.toml'), 'approval_policy = "untrusted"\n');
    const guarded = newSupervisor({ protectedPaths: [home] });
    const elsewhere = dir(os.tmpdir(), 'ws-');
    const result = await run(guarded, `echo 'approval_policy = "never"' >> ${home}/config.toml && echo "config:CHANGED"; touch ${home}/new && echo "home:WROTE"; exit 0`, elsewhere);
    expect(result.text).not.toMatch(/CHANGED|WROTE/);
    expect(fs.readFileSync(path.join(home, 'config.toml'), 'utf8')).toBe('approval_policy = "untrusted"\n');

    const inside = path.join(home, 'projects', 'app');
    fs.mkdirSync(inside, { recursive: true });
    const within = await run(guarded, `echo ok > app.txt && echo "workspace:ok"; echo x >> ${home}/config.toml && echo "config:CHANGED"; exit 0`, inside);
    expect(within.text).toContain('workspace:ok');
    expect(within.text).not.toContain('config:CHANGED');
  });

  it.skipIf(!hasPython)('a nested user namespace cannot undo the read-only binds', async () => {
    const workspace = repo(os.tmpdir());
    const outside = dir(scratch, 'out-');
    const script = path.join(dir(scratch, 'script-'), 'nested.py');
    fs.writeFileSync(
      script,
      [
        'import ctypes, os, sys',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'print("unshare", libc.unshare(0x10000000 | 0x00020000))',
        'print("umount .git", libc.umount2(b".git", 2))',
        'print("remount /", libc.mount(b"none", b"/", None, 32 | 4096, None))',
        'for target in [".git/hooks/pre-commit", sys.argv[1]]:',
        '    try:',
        '        open(target, "w").write("x"); print("WROTE", target)',
        '    except OSError as error: print("refused", target, error.strerror)',
      ].join('\n'),
    );
    const result = await run(supervisor, `python3 ${script} ${outside}/f`, workspace);
    expect(result.text).toMatch(/refused \.git\/hooks\/pre-commit/);
    expect(result.text).not.toContain('WROTE');
    expect(fs.existsSync(path.join(outside, 'f'))).toBe(false);
    expect(fs.existsSync(path.join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });
});

/**
 * A machine without user namespaces (a container that refuses them): bwrap
 * itself runs inside an outer sandbox that forbids creating one, with the
 * capabilities it needs for its mounts, as root in such a container has.
 */
const nested = await (async () => {
  if (unavailable !== null || !asRoot) return { skip: 'needs bubblewrap and root' } as const;
  const wrapperDir = fs.mkdtempSync(path.join(scratch, 'wh-no-userns-'));
  const real = status.available ? status.executable : '';
  const wrapper = path.join(wrapperDir, 'bwrap');
  fs.writeFileSync(
    wrapper,
    `#!/bin/sh\nexec ${real} --unshare-user --disable-userns --bind / / --dev /dev --proc /proc --unshare-pid --die-with-parent -- ${real} "$@"\n`,
    { mode: 0o755 },
  );
  const works = (args: string[]) => {
    try {
      execFileSync(wrapper, [...args, '--ro-bind', '/', '/', '--', 'true'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  // A sandbox must start inside, and a user namespace must not: anything else does not simulate such a machine.
  if (works([]) && !works(['--unshare-user'])) return { skip: null, wrapperDir } as const;
  fs.rmSync(wrapperDir, { recursive: true, force: true });
  return { skip: 'this bubblewrap cannot simulate a machine without user namespaces (it needs --disable-userns)' } as const;
})();
afterAll(() => {
  if (nested.skip === null) fs.rmSync(nested.wrapperDir, { recursive: true, force: true });
});

describe.skipIf(nested.skip !== null)(`without user namespaces${nested.skip ? ` — skipped: ${nested.skip}` : ''}`, () => {
  it('falls back to dropping every capability, says so, and still holds', async () => {
    if (nested.skip !== null) return;
    const detected = await detectSandbox(`${nested.wrapperDir}:${process.env.PATH ?? ''}`);
    expect(detected).toMatchObject({ available: true, isolation: { userNamespace: false } });
    expect(detected.available && detected.note).toMatch(/user namespaces are unavailable/i);

    const supervisor = newSupervisor({ pathPrefix: nested.wrapperDir });
    expect(await supervisor.sandboxStatus()).toMatchObject({ available: true, executable: path.join(nested.wrapperDir, 'bwrap') });
    const workspace = repo(os.tmpdir());
    const outside = dir(scratch, 'out-');
    const escape = await run(supervisor, REMOUNT_AND_WRITE(path.join(outside, 'f')), workspace);
    expect(escape.text).toMatch(/CapEff:\s*0{16}/);
    expect(escape.text).not.toContain(':DONE');
    expect(fs.existsSync(path.join(outside, 'f'))).toBe(false);
    const hook = await run(supervisor, PLANT_HOOK, workspace);
    expect(hook.text).not.toMatch(/PLANTED|CHANGED/);
    expect((await run(supervisor, 'echo ok > file.txt && echo "file:ok"', workspace)).text).toContain('file:ok');
  });
});
