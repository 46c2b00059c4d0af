import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, test } from 'vitest';
import { ErrorCode } from '../../../shared/protocol/index.js';
import { useMachineThreads } from '../../../test-support/machine-threads.js';
import { inProcessPeer } from '../../../test-support/protocol-peer.js';
import { useTestSshd } from '../../../test-support/sshd-fixture.js';
import { sshdUnavailable, type TestSshd } from '../../../test-support/sshd.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { RpcHost } from '../../server/rpc-host.js';

/**
 * The terminal panel of a thread on an SSH machine (`command/exec` with a pty
 * and the thread's id) opens there, against Debian's real sshd on 127.0.0.1:
 * "there" is this machine's process table, reached only over SSH.
 */
const unavailable = sshdUnavailable();
let sshd: TestSshd | undefined;

useTestSshd((started) => (sshd = started));
const machines = useMachineThreads(() => sshd);
// Registered after the machines' hooks, so it runs before them: each client leaves before its runtime shuts down.
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A runtime with the test sshd as machine `box`, a thread working there, and one client connection to it. */
async function machineThread(server: TestSshd) {
  const { k, remoteFolder } = await machines.open(server);
  const host = new RpcHost(k.runtime);
  cleanups.push(() => host.close());
  const { thread } = await k.call('thread/start', { environments: [{ environmentId: 'box', cwd: remoteFolder }] });

  const peer = await inProcessPeer(host, 'terminal-test');
  return { k, thread, remoteFolder, call: (method: string, params: unknown) => peer.request(method, params), peer };
}

/** Opens the terminal panel's shell for `threadId` as the renderer does; returns how to type into it and read it. */
function openTerminal(t: Awaited<ReturnType<typeof machineThread>>, threadId: string, processId = 'term') {
  const execId = t.peer.send('command/exec', {
    command: ['sh'],
    loginShell: true,
    tty: true,
    processId,
    threadId,
    size: { cols: 100, rows: 30 },
    disableTimeout: true,
    disableOutputCap: true,
  });
  let output = '';
  const printed = (text: string) =>
    t.peer.inbox.take(
      (received) => {
        if (received.kind !== 'notification' || received.message.method !== 'command/exec/outputDelta') return false;
        const params = received.message.params as { processId: string; deltaBase64: string };
        if (params.processId !== processId) return false;
        output += Buffer.from(params.deltaBase64, 'base64').toString('utf8');
        return output.includes(text);
      },
      `the terminal ${processId} to print ${text}`,
    );
  const type = async (text: string) =>
    expect(await t.call('command/exec/write', { processId, deltaBase64: Buffer.from(text).toString('base64') })).toMatchObject({ result: {} });
  return { printed, type, exited: () => t.peer.inbox.response(execId), output: () => output };
}

/** Processes on this machine running exactly `sleep <n>`. */
function sleepers(seconds: number): string[] {
  return execFileSync('ps', ['-A', '-o', 'args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line === `sleep ${seconds}`);
}

describe("a thread's terminal on an SSH machine", () => {
  test('opens there, in the thread\'s folder, takes input and follows resizes', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const t = await machineThread(sshd);
    const terminal = openTerminal(t, t.thread.id);
    // The arithmetic is the shell's, so the marker is output, not the echo of what was typed.
    await terminal.type('printf "at-%s %s\\n" "$((40+2))" "$(pwd)"; printf "via-%s\\n" "${SSH_CONNECTION%% *}"\n');
    await terminal.printed(`at-42 ${t.remoteFolder}`);
    await terminal.printed('via-127.0.0.1');

    await terminal.type('echo "size-$(stty size | tr " " x)"\n');
    await terminal.printed('size-30x100');
    expect(await t.call('command/exec/resize', { processId: 'term', size: { cols: 132, rows: 41 } })).toMatchObject({ result: {} });
    await terminal.type('echo "size-$(stty size | tr " " x)"\n');
    await terminal.printed('size-41x132');

    await terminal.type('exit 7\n');
    expect(await terminal.exited()).toMatchObject({ result: { exitCode: 7 } });
  });

  test('terminate ends the whole tree there', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const t = await machineThread(sshd);
    const terminal = openTerminal(t, t.thread.id);
    await terminal.type('sleep 7391 & sleep 7392 & echo "started-$((1+1))"\n');
    await terminal.printed('started-2');
    await waitUntil(() => sleepers(7391).length === 1 && sleepers(7392).length === 1, { what: 'the sleepers to run there' });
    expect(await t.call('command/exec/terminate', { processId: 'term' })).toMatchObject({ result: {} });
    await terminal.exited();
    await waitUntil(() => sleepers(7391).length === 0 && sleepers(7392).length === 0, { what: 'the remote tree to end' });
  });

  test('follows the thread: once it moves to this computer, a terminal opened for it opens here, while the one already open stays there', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const t = await machineThread(sshd);
    // Where a shell runs, in its own words: its folder, and the address SSH gave it (none here).
    const whereAreYou = (mark: number) => `printf "at-%s %s via-%s-end\\n" "$((${mark}+1))" "$(pwd)" "\${SSH_CONNECTION%% *}"\n`;
    const there = openTerminal(t, t.thread.id, 'there');
    await there.type(whereAreYou(41));
    await there.printed(`at-42 ${t.remoteFolder} via-127.0.0.1-end`);

    await t.k.call('thread/settings/update', { threadId: t.thread.id, environments: [] });
    const localFolder = (await t.k.call('thread/read', { threadId: t.thread.id })).thread.cwd;
    const here = openTerminal(t, t.thread.id, 'here');
    await here.type(whereAreYou(41));
    const ownAddress = process.env['SSH_CONNECTION']?.split(' ')[0] ?? '';
    await here.printed(`at-42 ${localFolder} via-${ownAddress}-end`);
    expect(here.output()).not.toContain(t.remoteFolder);

    // The terminal opened before the move is still the shell over there.
    await there.type(whereAreYou(42));
    await there.printed(`at-43 ${t.remoteFolder} via-127.0.0.1-end`);
    for (const terminal of [there, here]) await terminal.type('exit\n');
    expect(await there.exited()).toMatchObject({ result: { exitCode: 0 } });
    expect(await here.exited()).toMatchObject({ result: { exitCode: 0 } });
  });

  test('an unknown thread is a typed error and starts nothing', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const t = await machineThread(sshd);
    const answer = await t.call('command/exec', { command: ['true'], threadId: 'no-such-thread' });
    expect(answer).toMatchObject({ error: { code: expect.any(Number) } });
    expect((answer as { error: { code: number } }).error.code).not.toBe(ErrorCode.Internal);
  });
});
