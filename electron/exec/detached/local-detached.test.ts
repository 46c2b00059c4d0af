import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { killAllChildren, spawnTracked } from '../../../test-support/child-process.js';
import { expectNoRunsLeft, follow } from '../../../test-support/detached-runs.js';
import { alive, pidsAfter } from '../../../test-support/exec.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { repoRoot } from '../../../test-support/paths.js';
import { TempDirs } from '../../../test-support/temp-dir.js';
import { readStat, signalTree, treeMembers } from '../process-tree.js';
import { detectSandbox } from '../sandbox.js';
import { ProcessSupervisor } from '../supervisor.js';
import type { DetachedRunHandle } from './detached-run.js';
import { parseExit } from './run-log-file.js';

/** Real detached runs: /bin/sh, util-linux `script`, real signals, real files. */
const temp = new TempDirs();
let root = '';
afterEach(async () => {
  await killAllChildren();
  const left = root;
  root = '';
  try {
    if (left) expectNoRunsLeft(left);
  } finally {
    temp.cleanup();
  }
});

function environment(pollMs = 200) {
  root = temp.make('wheelhouse-detached-');
  const supervisor = new ProcessSupervisor({ logDir: path.join(root, 'logs'), runsDir: path.join(root, 'runs'), detachedPollMs: pollMs });
  return { env: supervisor.detached, cwd: temp.make('wheelhouse-detached-cwd-') };
}

const probe = new ProcessSupervisor({ logDir: path.join(temp.make(), 'logs') }).detached;
const unsupported = probe.unsupported;

describe.skipIf(unsupported !== null)('local detached runs', () => {
  it('run in their own session with a terminal, log every byte once, and record the real exit status', async () => {
    const { env, cwd } = environment();
    const place = env.prepare('job-a-1');
    const handle = await env.startDetached(place, { command: 'printf "\\033[31mred\\033[0m\\n"; [ -t 1 ] && echo tty:yes; echo "size:$(stty size)"; echo "shell:$SHELL"; pwd; printf "é"; echo; exit 3', cwd });
    expect(handle).toMatchObject({ environment: 'local', runId: 'job-a-1', runDir: place.runDir, logPath: place.logPath, pid: expect.any(Number) });
    // Its own session: nothing of ours (group, terminal) reaches it.
    expect(readStat(handle.pid)?.session ?? handle.pid).toBe(handle.pid);
    const run = follow(env, handle);
    const end = await run.ended;
    expect(end).toEqual({ state: 'ended', exit: { exitCode: 3, signal: null } });
    const text = run.text();
    expect(text).toContain('\x1b[31mred\x1b[0m');
    expect(text).toContain('tty:yes');
    expect(text).toContain('size:30 120');
    expect(text).toContain(`shell:${process.env.SHELL ?? ''}`);
    expect(text).toContain(fs.realpathSync(cwd));
    expect(text).toContain('é');
    expect(fs.readFileSync(place.logPath, 'utf8')).toBe(text);
    // Offsets are contiguous from 0: every byte delivered once.
    let next = 0;
    for (const event of run.events) {
      if (event.type !== 'output') continue;
      expect(event.offset).toBe(next);
      next += event.data.length;
    }
    expect(env.state(handle)).toEqual({ state: 'ended', exit: { exitCode: 3, signal: null } });
    // The wrapper exits right after recording the end.
    await waitUntil(() => !env.isAlive(handle), { what: 'the wrapper to exit' });
    expect((fs.statSync(place.logPath).mode & 0o777).toString(8)).toBe('600');
  });

  it('outlive the process that started them (kill -9), including a command that ignores SIGHUP', async () => {
    const { cwd } = environment();
    const runsDir = path.join(root, 'runs');
    const starter = spawnTracked(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'test-support', 'start-detached-run.ts'), runsDir, cwd, `trap '' HUP; echo started; while [ ! -e go ]; do sleep 0.05; done; echo finished`], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: starter.child.stdout! }).once('line', resolve);
      void starter.exited.then(() => reject(new Error(`the starter ended: ${starter.stderr()}`)));
    });
    const handle = JSON.parse(line) as DetachedRunHandle;
    const { env } = { env: new ProcessSupervisor({ logDir: path.join(root, 'logs2'), runsDir }).detached };
    await waitUntil(() => fs.readFileSync(handle.logPath, 'utf8').includes('started'), { what: 'the run to start' });
    expect((await starter.stop('SIGKILL')).signal).toBe('SIGKILL');
    expect(env.isAlive(handle)).toBe(true);
    // Not a child of the killed process any more.
    expect(readStat(handle.pid)?.ppid).not.toBe(starter.child.pid);
    const run = follow(env, handle);
    await run.until(/started/);
    fs.writeFileSync(path.join(cwd, 'go'), '');
    expect(await run.ended).toEqual({ state: 'ended', exit: { exitCode: 0, signal: null } });
    expect(run.text()).toMatch(/^started\r\nfinished\r\n$/);
  });

  it('are told apart from a process that reuses the pid (start time), and found again when only the folder was recorded', async () => {
    const { env, cwd } = environment();
    const place = env.prepare('job-b-1');
    const handle = await env.startDetached(place, { command: 'while [ ! -e go ]; do sleep 0.05; done', cwd });
    expect(env.isAlive(handle)).toBe(true);
    expect(env.isAlive({ ...handle, startTime: String(Number(handle.startTime) + 1) })).toBe(false);
    expect(env.state({ ...handle, startTime: 'other' })).toEqual({ state: 'lost' });
    // The app died after starting it but before recording the handle: the folder says it started.
    await waitUntil(() => env.find(place) !== null, { what: 'the wrapper pid file' });
    expect(env.find(place)).toEqual(handle);
    expect(env.find(env.prepare('job-b-2'))).toBeNull();
    expect(() => env.prepare('job-b-1')).toThrow(/already started/);
    fs.writeFileSync(path.join(cwd, 'go'), '');
    const run = follow(env, handle);
    expect(await run.ended).toMatchObject({ state: 'ended' });
    await waitUntil(() => !env.isAlive(handle), { what: 'the wrapper to exit after recording the end' });
    expect(env.find(place)).toMatchObject({ pid: handle.pid, startTime: 'gone' });
  });

  it('pause and resume the whole tree, and terminate it — grandchildren and SIGHUP-ignoring ones included', async () => {
    const { env, cwd } = environment();
    const handle = await env.startDetached(env.prepare('job-c-1'), {
      command: `sh -c 'trap "" HUP; sleep 300' & echo "pid:$!"; sleep 300 & echo "pid:$!"; i=0; while true; do i=$((i+1)); echo tick$i; sleep 0.05; done`,
      cwd,
    });
    const run = follow(env, handle);
    await run.until(/tick3/);
    const pids = pidsAfter(run.text(), 'pid:');
    expect(alive(pids)).toEqual(pids);
    env.signal(handle, 'SIGSTOP');
    await waitUntil(() => pids.every((pid) => readStat(pid)?.state === 'T'), { what: 'the tree to stop' });
    run.attachment.poll();
    const frozen = run.text().length;
    env.signal(handle, 'SIGCONT');
    await waitUntil(() => (run.attachment.poll(), run.text().length > frozen + 10), { what: 'output after resume' });
    await env.terminate(handle, 1000);
    expect(await run.ended).toEqual({ state: 'ended', exit: { exitCode: 143, signal: 'SIGTERM' } });
    expect(alive(pids)).toEqual([]);
    expect(treeMembers(handle.pid)).toEqual([]);
  });

  it('a run whose wrapper is killed without recording an end is lost; a log cap keeps the command going', async () => {
    const { env, cwd } = environment();
    const handle = await env.startDetached(env.prepare('job-d-1'), { command: 'echo up; sleep 300', cwd });
    const run = follow(env, handle);
    await run.until(/up/);
    // What a reboot or `kill -9` of everything of the run does.
    signalTree(handle.pid, 'SIGKILL');
    expect(await run.ended).toEqual({ state: 'lost' });

    const capped = await env.startDetached(env.prepare('job-d-2'), { command: 'seq 1 5000; echo done > finished', cwd, logCapBytes: 1024 });
    const cappedRun = follow(env, capped);
    expect(await cappedRun.ended).toEqual({ state: 'ended', exit: { exitCode: 0, signal: null } });
    expect(fs.existsSync(path.join(cwd, 'finished'))).toBe(true);
    const log = fs.readFileSync(capped.logPath, 'utf8');
    expect(log).toMatch(/^1\r\n2\r\n/);
    expect(log.indexOf('[wheelhouse: log truncated here — its 1024-byte cap was reached')).toBeGreaterThan(1000);
    expect(Buffer.byteLength(log)).toBeLessThan(1300);
  });

  it('attach from an offset repeats nothing delivered before', async () => {
    const { env, cwd } = environment();
    const handle = await env.startDetached(env.prepare('job-e-1'), { command: 'echo line1; echo line2; echo line3; while [ ! -e go ]; do sleep 0.05; done; echo line4; echo line5', cwd });
    const first = follow(env, handle);
    await first.until(/line3/);
    first.attachment.dispose();
    const offset = first.attachment.offset;
    const second = follow(env, handle, offset);
    fs.writeFileSync(path.join(cwd, 'go'), '');
    await second.ended;
    expect(first.text() + second.text()).toBe(fs.readFileSync(handle.logPath, 'utf8'));
    expect(second.text()).toBe('line4\r\nline5\r\n');
    expect(second.events.find((event) => event.type === 'output')).toMatchObject({ offset });
  });

  it('reads the exit record: codes, signals, and a run that recorded none', () => {
    expect(parseExit('exit 0\n')).toEqual({ exitCode: 0, signal: null });
    expect(parseExit('exit 137\n')).toEqual({ exitCode: 137, signal: 'SIGKILL' });
    expect(parseExit('ended\n')).toEqual({ exitCode: null, signal: null });
  });
});

const sandbox = await detectSandbox(process.env.PATH);

describe.skipIf(unsupported !== null || !sandbox.available)('sandboxed detached runs', () => {
  it('stay in their sandbox, and their bubblewrap is the wrapper’s, not the app’s', async () => {
    const { env } = environment();
    // Outside /tmp, which workspace-write leaves writable.
    const scratch = fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : root, 'wheelhouse-detached-sandbox-'));
    try {
      const workspace = path.join(scratch, 'ws');
      const outside = path.join(scratch, 'out');
      fs.mkdirSync(workspace);
      fs.mkdirSync(outside);
      const handle = await env.startDetached(env.prepare('job-f-1'), {
        command: `echo in > inside.txt && echo ok-inside; echo out > '${outside}/x.txt' || echo refused-outside; while [ ! -e go ]; do sleep 0.05; done`,
        cwd: workspace,
        sandbox: { mode: 'workspace-write' },
      });
      const run = follow(env, handle);
      await run.until(/refused-outside/);
      const bwrap = treeMembers(handle.pid).map((member) => readStat(member.pid)).find((entry) => entry && fs.readFileSync(`/proc/${entry.pid}/cmdline`, 'utf8').startsWith(`${sandbox.available ? sandbox.executable : ''}\0`));
      expect(bwrap?.ppid, 'bubblewrap runs under the wrapper').not.toBe(process.pid);
      expect(run.text()).toContain('ok-inside');
      expect(fs.existsSync(path.join(workspace, 'inside.txt'))).toBe(true);
      expect(fs.existsSync(path.join(outside, 'x.txt'))).toBe(false);
      fs.writeFileSync(path.join(workspace, 'go'), '');
      expect(await run.ended).toEqual({ state: 'ended', exit: { exitCode: 0, signal: null } });
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
