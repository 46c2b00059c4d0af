import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { expectNoRunsLeft, follow } from '../../../test-support/detached-runs.js';
import { useTestSshd } from '../../../test-support/sshd-fixture.js';
import { sshdUnavailable, type TestSshd } from '../../../test-support/sshd.js';
import { TempDirs } from '../../../test-support/temp-dir.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { SshConnection, SshConnectError } from './ssh-connection.js';
import { SshDetachedEnvironment } from './ssh-detached.js';

/** SSH environments against Debian's real OpenSSH server on 127.0.0.1 (this machine is the "host"). */
const temp = new TempDirs();
const unavailable = sshdUnavailable();
let sshd: TestSshd | undefined;
let remoteRuns = '';
const connections: SshConnection[] = [];

useTestSshd((started) => (sshd = started));
afterEach(async () => {
  for (const connection of connections.splice(0)) connection.close();
  if (sshd) await waitUntil(() => sshd!.sessionPids().length === 0, { what: 'every SSH session to close' });
  const left = remoteRuns;
  remoteRuns = '';
  try {
    if (left) expectNoRunsLeft(left);
  } finally {
    temp.cleanup();
  }
});

function connect(server: TestSshd, options: { knownHosts?: string; pinned?: string; ask?: () => Promise<boolean> } = {}) {
  const home = temp.make('wheelhouse-home-');
  const own = path.join(home, 'known_hosts');
  if (options.knownHosts !== undefined) fs.writeFileSync(own, options.knownHosts);
  const questions: string[] = [];
  const connection = new SshConnection({
    host: server.host,
    port: server.port,
    user: server.user,
    privateKey: async () => server.privateKey,
    pinnedFingerprint: options.pinned ?? null,
    knownHostsFiles: [path.join(home, 'no-such-user-known-hosts'), own],
    askHostKey: async (question) => {
      questions.push(question.fingerprint);
      return options.ask ? options.ask() : false;
    },
  });
  connections.push(connection);
  return { connection, questions, home, own };
}

function environmentOn(connection: SshConnection, home: string) {
  remoteRuns ||= temp.make('wheelhouse-remote-runs-');
  return new SshDetachedEnvironment({ environmentId: 'ssh-test', shell: connection, mirrorDir: path.join(home, 'runs', 'ssh-test'), remoteRunsDir: remoteRuns, pollMs: 100 });
}

describe('SSH environments', () => {
  test('run a command on the host and say what it printed', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { connection } = connect(sshd, { pinned: sshd.hostKeyFingerprint() });
    const result = await connection.exec('uname -s; id -un; printf "%s" "$SSH_CONNECTION" | cut -d" " -f3');
    expect(result.code).toBe(0);
    expect(result.stdout.toString().split('\n').slice(0, 3)).toEqual(['Linux', sshd.user, '127.0.0.1']);
    expect(connection.state).toBe('connected');
  });

  test('ask once about a host no list knows, remember the answer, and refuse a changed host key', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const first = connect(sshd, { ask: async () => true });
    await first.connection.connect();
    expect(first.questions).toEqual([sshd.hostKeyFingerprint()]);
    expect(fs.readFileSync(first.own, 'utf8')).toContain(sshd.knownHostsLine());
    first.connection.close();

    // The same list: trusted without a question.
    const again = connect(sshd, { knownHosts: sshd.knownHostsLine() + '\n', ask: async () => true });
    await again.connection.connect();
    expect(again.questions).toEqual([]);
    again.connection.close();
    await waitUntil(() => sshd!.sessionPids().length === 0, { what: 'the sessions to close' });

    const oldLine = sshd.knownHostsLine();
    const oldFingerprint = sshd.hostKeyFingerprint();
    await sshd.replaceHostKey();
    const changed = connect(sshd, { knownHosts: oldLine + '\n', ask: async () => true });
    const refusal = await changed.connection.exec('touch should-not-run').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SshConnectError);
    expect((refusal as SshConnectError).reason).toBe('host-key-changed');
    expect((refusal as Error).message).toContain('has changed');
    expect((refusal as Error).message).toContain(sshd.hostKeyFingerprint());
    // Never put to the person as if it were new, never added to the list.
    expect(changed.questions).toEqual([]);
    expect(fs.readFileSync(changed.own, 'utf8')).toBe(oldLine + '\n');

    const pinned = connect(sshd, { pinned: oldFingerprint });
    await expect(pinned.connection.connect()).rejects.toMatchObject({ reason: 'host-key-changed' });
    const declined = connect(sshd, { ask: async () => false });
    await expect(declined.connection.connect()).rejects.toMatchObject({ reason: 'host-key-rejected' });
  });

  test('a job run outlives its connection and Wheelhouse, is re-attached from its offset and never started twice', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const cwd = temp.make('wheelhouse-remote-cwd-');
    const gate = path.join(cwd, 'go');
    const before = connect(sshd, { pinned: sshd.hostKeyFingerprint() });
    const envBefore = environmentOn(before.connection, before.home);
    const place = envBefore.prepare('job-ssh-1');
    const command = `echo started >> runs.count; [ -t 1 ] && t=tty; echo "first $(pwd) $t"; while [ ! -e go ]; do sleep 0.05; done; echo second; exit 7`;
    const handle = await envBefore.startDetached(place, { command, cwd });
    expect(handle).toMatchObject({ environment: 'ssh', environmentId: 'ssh-test', runId: 'job-ssh-1', pid: expect.any(Number) });
    const run = follow(envBefore, handle);
    await run.until(/first .* tty/);
    const shown = run.attachment.offset;
    // Wheelhouse goes away: the follower and the connection with it.
    run.attachment.dispose();
    before.connection.close();
    await waitUntil(() => sshd!.sessionPids().length === 0, { what: 'the first connection to close' });

    const after = connect(sshd, { pinned: sshd.hostKeyFingerprint() });
    const envAfter = environmentOn(after.connection, after.home);
    // A second start at the same place (a crash before the handle was recorded) finds the run.
    const found = await envAfter.startDetached({ ...place, logPath: path.join(after.home, 'copy.log') }, { command, cwd });
    expect(found).toMatchObject({ pid: handle.pid, startTime: handle.startTime });
    const resumed = follow(envAfter, { ...handle, logPath: path.join(after.home, 'resumed.log') }, shown);
    fs.writeFileSync(gate, '');
    expect(await resumed.ended).toEqual({ state: 'ended', exit: { exitCode: 7, signal: null } });
    expect(run.text() + resumed.text()).toMatch(/^first \S+ tty\r\nsecond\r\n$/);
    expect(resumed.events.find((event) => event.type === 'output')).toMatchObject({ offset: shown });
    expect(fs.readFileSync(path.join(cwd, 'runs.count'), 'utf8')).toBe('started\n');
    expect(envAfter.state(handle)).toEqual({ state: 'ended', exit: { exitCode: 7, signal: null } });
  });

  test('cancel ends the whole remote tree', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const cwd = temp.make('wheelhouse-remote-cwd-');
    const { connection, home } = connect(sshd, { pinned: sshd.hostKeyFingerprint() });
    const env = environmentOn(connection, home);
    const handle = await env.startDetached(env.prepare('job-ssh-2'), { command: 'sleep 600 & echo child $!; wait', cwd });
    const run = follow(env, handle);
    await run.until(/child \d+/);
    const child = Number(/child (\d+)/.exec(run.text())![1]);
    await env.terminate(handle, 2000);
    const end = await run.ended;
    expect(end.state).toBe('ended');
    expect(fs.existsSync(`/proc/${child}`)).toBe(false);
  });
});
