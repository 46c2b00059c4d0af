import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { RpcError, type AnyNotification, type ThreadItem } from '../../../shared/protocol/index.js';
import { execCall, textReply } from '../../../test-support/agent-commands.js';
import type { JobTestKit } from '../../../test-support/job-test-kit.js';
import { notificationsOf, turnsCompleted, useMachineThreads } from '../../../test-support/machine-threads.js';
import { useTestSshd } from '../../../test-support/sshd-fixture.js';
import { sshdUnavailable, type TestSshd } from '../../../test-support/sshd.js';

/**
 * A thread whose commands run on an SSH machine, through the runtime, with
 * the mock model calling exec_command and Debian's real sshd on 127.0.0.1
 * (so "there" is this machine's process table, reached only over SSH).
 */
const unavailable = sshdUnavailable();
let sshd: TestSshd | undefined;

useTestSshd((started) => (sshd = started));
const machines = useMachineThreads(() => sshd);

type CommandItem = Extract<ThreadItem, { type: 'commandExecution' }>;

const params = <T>(notification: AnyNotification) => notification.params as T;

function commandItems(k: JobTestKit, method: 'item/started' | 'item/completed'): CommandItem[] {
  return notificationsOf(k, method)
    .map((n) => params<{ item: ThreadItem }>(n).item)
    .filter((item): item is CommandItem => item.type === 'commandExecution');
}

/** Processes on this machine running exactly `sleep <n>` for one of `seconds` (what the remote command started). */
function sleepers(...seconds: number[]): string[] {
  const wanted = new Set(seconds.map((n) => `sleep ${n}`));
  return execFileSync('ps', ['-A', '-o', 'args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => wanted.has(line));
}

describe('a thread on an SSH machine', () => {
  test("its commands run there, in the folder chosen, asked about here first naming the machine, and stream as they run", async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { k, mock, remoteFolder } = await machines.open(sshd);
    const { thread } = await k.call('thread/start', { approvalPolicy: 'on-request', environments: [{ environmentId: 'box', cwd: remoteFolder }] });
    expect(thread.environments).toEqual([{ environmentId: 'box', cwd: remoteFolder, runtimeWorkspaceRoots: [remoteFolder] }]);
    mock.enqueue(execCall('pwd; printf "over %s\\n" "${SSH_CONNECTION%% *}"; for i in 1 2 3; do echo "line $i"; done', { workdir: '.' }), textReply('Done.'));
    await k.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'where are you' }] });

    // Nothing is sent before the person says yes: the sandbox is this computer's, so a command there asks.
    // The command's item is announced after its request is registered.
    await k.until('the command to ask', () => commandItems(k, 'item/started').length === 1);
    const { data } = await k.call('approval/list', { threadId: thread.id });
    expect(data).toHaveLength(1);
    const asked = data[0]!.params as { environmentId: string; cwd: string; runsIn: { type: string } };
    expect(asked).toMatchObject({ environmentId: 'box', cwd: remoteFolder, runsIn: { type: 'noSandbox' } });
    expect(notificationsOf(k, 'item/commandExecution/outputDelta')).toEqual([]);
    await k.call('approval/answer', { requestId: data[0]!.requestId, decision: 'accept' });

    await k.until('the turn to end', () => turnsCompleted(k) === 1);
    const [done] = commandItems(k, 'item/completed');
    expect(done).toMatchObject({ status: 'completed', exitCode: 0, cwd: remoteFolder, environmentId: 'box' });
    expect(done!.aggregatedOutput).toContain(`${remoteFolder}\r\nover 127.0.0.1\r\nline 1\r\nline 2\r\nline 3`);
    const streamed = notificationsOf(k, 'item/commandExecution/outputDelta').map((n) => params<{ delta: string }>(n).delta).join('');
    expect(streamed).toContain('line 3');
    const stored = (await k.call('thread/read', { threadId: thread.id, includeTurns: true })).thread;
    expect(stored.environments[0]).toMatchObject({ environmentId: 'box', cwd: remoteFolder });
    expect(stored.turns.at(-1)!.items.find((item) => item.type === 'commandExecution')).toMatchObject({ environmentId: 'box' });

    // The machine cannot be removed while a thread works there.
    const refused = await k.call('environment/remove', { environmentId: 'box' }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).data).toMatchObject({ reason: 'environment.inUse', threads: [{ threadId: thread.id }] });

    // Back to this computer for the next turns ([] = this computer, as Codex has it).
    await k.call('thread/settings/update', { threadId: thread.id, environments: [] });
    expect((await k.call('thread/read', { threadId: thread.id })).thread.environments[0]!.environmentId).toBe('local');
  });

  test('an interrupt ends the whole tree on the machine', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { k, mock, remoteFolder } = await machines.open(sshd);
    const { thread } = await k.call('thread/start', { approvalPolicy: 'never', sandbox: 'danger-full-access', environments: [{ environmentId: 'box', cwd: remoteFolder }] });
    mock.enqueue(execCall('sleep 3017 & sleep 3018 & echo ready; wait', { yield_time_ms: 300_000 }));
    const { turn } = await k.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'wait' }] });
    await k.until('the tree to start there', () => notificationsOf(k, 'item/commandExecution/outputDelta').some((n) => params<{ delta: string }>(n).delta.includes('ready')));
    expect(sleepers(3017, 3018)).toHaveLength(2);
    await k.call('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    await k.until('the turn to end', () => turnsCompleted(k) === 1);
    await k.until('the command item to end', () => commandItems(k, 'item/completed').length === 1);
    expect(commandItems(k, 'item/completed')[0]!.status).toBe('failed');
    expect(sleepers(3017, 3018)).toEqual([]);
  });

  test('a dropped connection fails the running command with words, says the thread is disconnected, and comes back by itself', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { k, mock, remoteFolder } = await machines.open(sshd);
    const { thread } = await k.call('thread/start', { approvalPolicy: 'never', sandbox: 'danger-full-access', environments: [{ environmentId: 'box', cwd: remoteFolder }] });
    mock.enqueue(execCall('echo started; sleep 3019', { yield_time_ms: 300_000 }), textReply('It broke.'));
    await k.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'run' }] });
    await k.until('the command to start there', () => notificationsOf(k, 'item/commandExecution/outputDelta').some((n) => params<{ delta: string }>(n).delta.includes('started')));
    expect(notificationsOf(k, 'thread/environment/connected').map((n) => n.params)).toEqual([{ environmentId: 'box', threadId: thread.id }]);

    for (const pid of sshd.sessionPids()) process.kill(pid, 'SIGKILL');
    await k.until('the command item to end', () => commandItems(k, 'item/completed').length === 1);
    const [failed] = commandItems(k, 'item/completed');
    expect(failed!.status).toBe('failed');
    expect(failed!.aggregatedOutput).toContain('the connection to 127.0.0.1 was lost while the command ran');
    expect(notificationsOf(k, 'thread/environment/disconnected').map((n) => n.params)).toEqual([{ environmentId: 'box', threadId: thread.id }]);
    await k.until('the turn to end', () => turnsCompleted(k) === 1);

    // Reconnected with backoff, without a command asking for it.
    await k.until('the machine to be back', () => notificationsOf(k, 'thread/environment/connected').length === 2);
    expect(await k.call('environment/status', { environmentId: 'box' })).toEqual({ status: 'ready' });
    mock.enqueue(execCall('echo again'), textReply('Fine.'));
    await k.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'again' }] });
    await k.until('the second turn to end', () => turnsCompleted(k) === 2);
    expect(commandItems(k, 'item/completed')[1]).toMatchObject({ status: 'completed', environmentId: 'box' });
  });

  test('a Slurm cluster, two machines at once, or a folder that is not a full path are refused with their own words, changing nothing', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { k, remoteFolder } = await machines.open(sshd);
    await k.call('environment/add', { environmentId: 'cluster', execServerUrl: 'slurm:///tmp?partition=debug' });
    const refusal = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(RpcError);
      return error as RpcError;
    };
    const slurm = await refusal(k.call('thread/start', { environments: [{ environmentId: 'cluster', cwd: '/tmp' }] }));
    expect(slurm.data).toMatchObject({ reason: 'environment.notForThreads' });
    expect(slurm.message).toContain('runs batch jobs, not the commands of a chat turn');
    const { thread } = await k.call('thread/start', {});
    expect((await refusal(k.call('thread/settings/update', { threadId: thread.id, environments: [{ environmentId: 'box', cwd: 'relative' }], approvalPolicy: 'never' }))).message).toContain(
      'must be a full path there',
    );
    const both = [
      { environmentId: 'box', cwd: remoteFolder },
      { environmentId: 'box', cwd: '/tmp' },
    ];
    expect((await refusal(k.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'x' }], environments: both }))).message).toContain('one machine at a time');
    const after = (await k.call('thread/read', { threadId: thread.id })).thread;
    expect(after.environments[0]!.environmentId).toBe('local');
    expect(after.approvalPolicy).not.toBe('never');
  });
});
