import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collect, referenceWork } from '../../test-support/exec.js';
import { waitUntil } from '../../test-support/waiting.js';
import { isAlive, treeMembers } from './process-tree.js';
import { detectSandbox } from './sandbox.js';
import { ProcessSupervisor } from './supervisor.js';
import type { SandboxPolicy, SandboxStatus } from './types.js';

/**
 * Real bubblewrap runs. The folders live outside /tmp (which workspace-write
 * leaves writable), under the system's other temp folder.
 */
const scratchRoot = fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir();
const status: SandboxStatus = await detectSandbox(process.env.PATH);
const unavailable = status.available ? null : status.reason;
if (unavailable) console.warn(`sandbox tests skipped: ${unavailable}`);

const hasPython = (() => {
  try {
    execFileSync('python3', ['-c', '']);
    return true;
  } catch {
    return false;
  }
})();
const GIT_IDENTITY = ['-c', 'user.email=sandbox@example.invalid', '-c', 'user.name=Sandbox'];
const git = (cwd: string, ...args: string[]) => execFileSync('git', [...GIT_IDENTITY, ...args], { cwd, encoding: 'utf8' });

let root: string;
let supervisor: ProcessSupervisor;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(scratchRoot, 'wheelhouse-sandbox-'));
  supervisor = new ProcessSupervisor({ logDir: path.join(root, 'logs') });
});
afterAll(async () => {
  await supervisor.dispose();
  fs.rmSync(root, { recursive: true, force: true });
});

let dirs: { workspace: string; outside: string } | undefined;
afterEach(() => {
  for (const dir of Object.values(dirs ?? {})) fs.rmSync(dir, { recursive: true, force: true });
  dirs = undefined;
});

function makeDirs(): { workspace: string; outside: string } {
  const made = { workspace: fs.mkdtempSync(path.join(root, 'ws-')), outside: fs.mkdtempSync(path.join(root, 'out-')) };
  dirs = made;
  return made;
}

async function run(command: string, cwd: string, sandbox: SandboxPolicy, tty = false) {
  const child = await supervisor.spawn({ command: ['sh', '-c', command], cwd, sandbox, tty });
  const seen = collect(child);
  const exit = await child.exited;
  return { exit, text: seen.text() };
}

describe('sandbox status', () => {
  it('is reported plainly', () => {
    if (process.platform !== 'linux') expect(status).toMatchObject({ available: false, reason: expect.stringContaining('no sandbox') });
    else if (status.available) expect(status.executable).toMatch(/bwrap$/);
    else expect(status.reason.length).toBeGreaterThan(10);
  });
});

describe.skipIf(unavailable !== null)(`sandbox enforcement (bubblewrap)${unavailable ? ` — skipped: ${unavailable}` : ''}`, () => {
  it('workspace-write: writes inside the workspace and /tmp succeed, outside fail', async () => {
    const { workspace, outside } = makeDirs();
    const tmpFile = path.join('/tmp', `wheelhouse-sandbox-${process.pid}-${Date.now()}`);
    const result = await run(
      `echo inside > in.txt && echo "in:ok"; echo tmp > ${tmpFile} && echo "tmp:ok"; echo outside > ${outside}/out.txt && echo "out:WROTE"; exit 0`,
      workspace,
      { mode: 'workspace-write' },
    );
    expect(result.exit.exitCode).toBe(0);
    expect(result.text).toContain('in:ok');
    expect(result.text).toContain('tmp:ok');
    expect(result.text).toMatch(/Read-only file system/);
    expect(result.text).not.toContain('out:WROTE');
    expect(fs.readFileSync(path.join(workspace, 'in.txt'), 'utf8')).toBe('inside\n');
    expect(fs.existsSync(path.join(outside, 'out.txt'))).toBe(false);
    expect(fs.readFileSync(tmpFile, 'utf8')).toBe('tmp\n');
    fs.rmSync(tmpFile);
  });

  it('workspace-write honours extra writable roots', async () => {
    const { workspace, outside } = makeDirs();
    const result = await run(`echo y > ${outside}/extra.txt && echo "extra:ok"; exit 0`, workspace, { mode: 'workspace-write', writableRoots: [workspace, outside] });
    expect(result.text).toContain('extra:ok');
    expect(fs.readFileSync(path.join(outside, 'extra.txt'), 'utf8')).toBe('y\n');
  });

  it('what commands need still works in the sandbox: a login shell, node, python, git; new files are the person’s', async () => {
    const { workspace } = makeDirs();
    git(workspace, 'init', '-q');
    git(workspace, 'commit', '-q', '--allow-empty', '-m', 'first');
    const script = [
      'bash -lc "echo login:ok"',
      `node -e 'console.log("node:" + (1 + 1))'`,
      ...(hasPython ? [`python3 -c 'print("python:" + str(2 + 2))'`] : []),
      'git log --format=git:%s',
      'echo made > made.txt && git status --short',
    ].join('; ');
    const result = await run(script, workspace, { mode: 'workspace-write' });
    expect(result.exit.exitCode).toBe(0);
    expect(result.text).toContain('login:ok');
    expect(result.text).toContain('node:2');
    if (hasPython) expect(result.text).toContain('python:4');
    expect(result.text).toContain('git:first');
    expect(result.text).toContain('?? made.txt');
    expect(fs.statSync(path.join(workspace, 'made.txt')).uid).toBe(process.getuid!());
  });

  it('git commit needs the person: .git is read-only in workspace-write, as in Codex (full access commits)', async () => {
    const { workspace } = makeDirs();
    git(workspace, 'init', '-q');
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'a\n');
    const commit = `git add a.txt && git ${GIT_IDENTITY.join(' ')} commit -q -m sandboxed && echo "commit:DONE"; exit 0`;
    const sandboxed = await run(commit, workspace, { mode: 'workspace-write' });
    expect(sandboxed.text).toMatch(/index\.lock.*Read-only file system/);
    expect(sandboxed.text).not.toContain('commit:DONE');
    const unconfined = await run(commit, workspace, { mode: 'danger-full-access' });
    expect(unconfined.text).toContain('commit:DONE');
    expect(git(workspace, 'log', '--format=%s')).toBe('sandboxed\n');
  });

  it('read-only: reading works, writing anywhere fails (pty too)', async () => {
    const { workspace } = makeDirs();
    fs.writeFileSync(path.join(workspace, 'readme.txt'), 'readable\n');
    const result = await run('cat readme.txt; echo x > new.txt && echo "ws:WROTE"; echo x > /tmp/wh-ro-$$ && echo "tmp:WROTE"; exit 0', workspace, { mode: 'read-only' }, true);
    expect(result.text).toContain('readable');
    expect(result.text).not.toContain('WROTE');
    expect(fs.existsSync(path.join(workspace, 'new.txt'))).toBe(false);
  });

  it('network is off unless allowed: a loopback listener of the host cannot be reached', async () => {
    const { workspace } = makeDirs();
    const server = net.createServer((socket) => socket.end('hello from host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    // bash's /dev/tcp connects without needing curl or nc.
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3 && echo "net:CONNECTED"`;
    try {
      const blocked = await supervisor.spawn({ command: ['bash', '-c', connect], cwd: workspace, sandbox: { mode: 'workspace-write' }, tty: false });
      const blockedSeen = collect(blocked);
      expect((await blocked.exited).exitCode).not.toBe(0);
      expect(blockedSeen.text()).not.toContain('net:CONNECTED');

      const allowed = await supervisor.spawn({
        command: ['bash', '-c', connect],
        cwd: workspace,
        sandbox: { mode: 'workspace-write', networkAccess: true },
        tty: false,
      });
      const allowedSeen = collect(allowed);
      expect((await allowed.exited).exitCode).toBe(0);
      expect(allowedSeen.text()).toContain('hello from host\nnet:CONNECTED');
    } finally {
      server.close();
    }
  });

  it('terminate ends a sandboxed tree, and pause stops it', async () => {
    const { workspace } = makeDirs();
    const child = await supervisor.spawn({
      command: ['sh', '-c', 'while :; do echo tick; sleep 0.05; done'],
      cwd: workspace,
      sandbox: { mode: 'workspace-write' },
      tty: false,
    });
    const seen = collect(child);
    const ticks = () => seen.text().split('tick').length - 1;
    const waitTicks = (n: number) => waitUntil(() => ticks() >= n, { what: `${n} ticks` });
    await waitTicks(3);
    child.pause();
    // What it wrote before it stopped has arrived once another process has run for a while (ten rounds of 50 ms).
    await referenceWork(supervisor, workspace, 10);
    const paused = ticks();
    // And nothing more comes while it runs ten more.
    await referenceWork(supervisor, workspace, 10);
    expect(ticks()).toBe(paused);
    child.resume();
    await waitTicks(paused + 3);
    // bwrap, its pid-namespace init and the command, which runs in a session of its own.
    const members = treeMembers(child.pid);
    expect(members.length).toBeGreaterThanOrEqual(3);
    const exit = await child.terminate();
    expect(exit.reason).toBe('terminated');
    expect(members.filter((member) => isAlive(member))).toEqual([]);
  });
});
