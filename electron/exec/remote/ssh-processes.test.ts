import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { useTestSshd } from '../../../test-support/sshd-fixture.js';
import { pinnedConnection, sshdUnavailable, type TestSshd } from '../../../test-support/sshd.js';
import { TempDirs } from '../../../test-support/temp-dir.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { ProcessSupervisor } from '../supervisor.js';
import type { SupervisedProcess } from '../supervised-process.js';
import type { SshConnection } from './ssh-connection.js';
import { SshProcesses } from './ssh-processes.js';

/** A thread's commands on an SSH host: Debian's OpenSSH on 127.0.0.1, so "there" is this machine's process table. */
const temp = new TempDirs();
const unavailable = sshdUnavailable();
let sshd: TestSshd | undefined;
const connections: SshConnection[] = [];
const supervisors: ProcessSupervisor[] = [];

useTestSshd((started) => (sshd = started));
afterEach(async () => {
  for (const supervisor of supervisors.splice(0)) await supervisor.dispose();
  for (const connection of connections.splice(0)) connection.close();
  if (sshd) await waitUntil(() => sshd!.sessionPids().length === 0, { what: 'every SSH session to close' });
  temp.cleanup();
});

function hostOf(server: TestSshd) {
  const connection = pinnedConnection(server);
  connections.push(connection);
  const supervisor = new ProcessSupervisor({ logDir: path.join(temp.make('wheelhouse-logs-'), 'logs'), killGraceMs: 1000 });
  supervisors.push(supervisor);
  return { connection, processes: new SshProcesses('box', connection, supervisor) };
}

function outputOf(child: SupervisedProcess): { text: () => string } {
  const chunks: Buffer[] = [];
  child.subscribe((event) => {
    if (event.type === 'output') chunks.push(event.data);
  });
  return { text: () => Buffer.concat(chunks).toString('utf8') };
}

/** Processes of a session on this machine (the "host"), by its id. */
function sessionMembers(sid: number): number[] {
  const table = execFileSync('ps', ['-A', '-o', 'pid=,sid='], { encoding: 'utf8' });
  return table
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, session]) => session === sid)
    .map(([pid]) => pid!);
}

describe('commands of a thread on an SSH host', () => {
  test('run in a terminal there, in the folder asked, stream their output and take input', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { processes } = hostOf(sshd);
    const folder = temp.make('wheelhouse-remote-cwd-');
    const child = await processes.spawn({ command: 'pwd; test -t 0 && echo "a terminal"; read line; echo "got $line"; exit 3', cwd: folder });
    const output = outputOf(child);
    await waitUntil(() => output.text().includes('a terminal'), { what: 'the first lines from the host' });
    expect(child.pid).toBeGreaterThan(0);
    child.write('hello\r');
    const exit = await child.exited;
    expect(exit).toMatchObject({ exitCode: 3, reason: 'exited' });
    expect(output.text()).toContain(folder);
    expect(output.text()).toContain('got hello');
    // The pid mark is the channel's business, never the command's output.
    expect(output.text()).not.toContain('wheelhouse-pid');
  });

  test('a folder missing there fails with words that say so', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { processes } = hostOf(sshd);
    const child = await processes.spawn({ command: 'echo never', cwd: '/no/such/folder', tty: false });
    const output = outputOf(child);
    const exit = await child.exited;
    expect(exit.exitCode).toBe(91);
    expect(output.text()).toContain('no such folder on 127.0.0.1: /no/such/folder');
  });

  test('a sandbox is refused rather than promised there', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { processes } = hostOf(sshd);
    await expect(processes.spawn({ command: 'true', cwd: '/', sandbox: { mode: 'workspace-write' } })).rejects.toThrow(/sandbox applies on this machine only/);
  });

  test('an interrupt ends the whole tree there, background children included', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { processes } = hostOf(sshd);
    const child = await processes.spawn({ command: 'sleep 300 & sleep 301 & echo ready; wait', cwd: '/tmp' });
    const output = outputOf(child);
    await waitUntil(() => output.text().includes('ready'), { what: 'the tree to start' });
    const sid = child.pid;
    expect(sessionMembers(sid).length).toBeGreaterThanOrEqual(3);
    const exit = await child.terminate();
    expect(exit.reason).toBe('terminated');
    expect(sessionMembers(sid)).toEqual([]);
  });

  test('output past the high-water mark waits for the reader there (flow control)', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { processes } = hostOf(sshd);
    const child = await processes.spawn({ command: 'head -c 4000000 /dev/zero | tr "\\0" x; echo; echo done', cwd: '/tmp', tty: false });
    let received = 0;
    let acked = 0;
    const subscription = child.subscribe(
      (event) => {
        if (event.type === 'output') received += event.data.length;
      },
      { flowControl: true },
    );
    await waitUntil(() => child.outputPaused, { what: 'the output to be paused for the slow reader' });
    expect(child.state).toBe('running');
    // Read on in steps, as a slow client would.
    await waitUntil(
      () => {
        if (received > acked) {
          subscription.ack(received - acked);
          acked = received;
        }
        return child.state === 'exited';
      },
      { what: 'the command to finish once read', intervalMs: 20 },
    );
    expect(received).toBeGreaterThan(4_000_000);
    expect(child.maxUnackedBytes).toBeLessThan(4_000_000);
  });

  test('a dropped connection ends the command with words that say so; the next command connects again', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { processes, connection } = hostOf(sshd);
    const child = await processes.spawn({ command: 'echo started; sleep 300', cwd: '/tmp' });
    const output = outputOf(child);
    await waitUntil(() => output.text().includes('started'), { what: 'the command to start' });
    for (const pid of sshd.sessionPids()) process.kill(pid, 'SIGKILL');
    const exit = await child.exited;
    expect(exit.reason).toBe('connection-lost');
    expect(exit.detail).toMatch(/connection to 127\.0\.0\.1 was lost/);
    await waitUntil(() => connection.state === 'disconnected', { what: 'the connection to say it dropped' });
    const again = await processes.spawn({ command: 'echo back', cwd: '/tmp', tty: false });
    const more = outputOf(again);
    expect((await again.exited).exitCode).toBe(0);
    expect(more.text()).toContain('back');
    // What the dropped session left there went with its terminal (SIGHUP).
    await waitUntil(() => sessionMembers(child.pid).length === 0, { what: 'the dropped command to end there' });
  });
});
