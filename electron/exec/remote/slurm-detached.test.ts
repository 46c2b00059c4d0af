import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { follow } from '../../../test-support/detached-runs.js';
import { slurmUnavailable, startSlurmCluster, type TestSlurmCluster } from '../../../test-support/slurm-cluster.js';
import { pinnedConnection, sshdUnavailable, startSshd, type TestSshd } from '../../../test-support/sshd.js';
import { TempDirs } from '../../../test-support/temp-dir.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { LocalShell, type RemoteShell } from './remote-shell.js';
import { arraySpec, arrayStateOf, expandTaskIds, parseArrayLook } from './slurm-arrays.js';
import { slurmStateOf, SlurmDetachedEnvironment } from './slurm-detached.js';
import type { SshConnection } from './ssh-connection.js';

/** Slurm environments against a real single-node cluster (slurm-wlm + munge) started for this file. */
const fileTemp = new TempDirs();
const temp = new TempDirs();
const unavailable = slurmUnavailable() ?? sshdUnavailable();
let cluster: TestSlurmCluster | undefined;
let sshd: TestSshd | undefined;
const connections: SshConnection[] = [];

beforeAll(async () => {
  if (unavailable) return;
  cluster = await startSlurmCluster(fileTemp.make('wheelhouse-slurm-'));
  sshd = await startSshd(fileTemp.make('wheelhouse-sshd-'));
});
afterAll(async () => {
  await sshd?.stop();
  await cluster?.stop();
  fileTemp.cleanup();
});
afterEach(async () => {
  for (const connection of connections.splice(0)) connection.close();
  if (sshd) await waitUntil(() => sshd!.sessionPids().length === 0, { what: 'every SSH session to close' });
  temp.cleanup();
});

function environment(slurm: TestSlurmCluster, shell: RemoteShell = new LocalShell()) {
  const home = temp.make('wheelhouse-home-');
  return new SlurmDetachedEnvironment({
    environmentId: 'cluster',
    shell,
    mirrorDir: path.join(home, 'runs', 'cluster'),
    remoteRunsDir: path.join(slurm.dir, 'runs'),
    schedulerEnv: slurm.env,
    partition: slurm.partition,
    cpus: 1,
    memory: '100M',
    timeLimit: '10',
    pollMs: 100,
  });
}

const jobsNamed = async (slurm: TestSlurmCluster, name: string) =>
  (await slurm.client('/usr/bin/squeue', ['-h', '-t', 'all', '-n', name, '-o', '%i'])).trim().split('\n').filter(Boolean);

describe('Slurm environments', () => {
  test('map Slurm job states to ours, with the reason in words', () => {
    expect(slurmStateOf('PENDING', '0:0', 'Priority', null)).toEqual({ state: 'running', detail: 'waiting for the cluster (Priority)' });
    expect(slurmStateOf('RUNNING', '0:0', 'None', null)).toEqual({ state: 'running' });
    expect(slurmStateOf('COMPLETED', '0:0', 'None', 'exit 0')).toEqual({ state: 'ended', exit: { exitCode: 0, signal: null } });
    expect(slurmStateOf('FAILED', '3:0', 'NonZeroExitCode', null)).toEqual({ state: 'ended', exit: { exitCode: 3, signal: null } });
    expect(slurmStateOf('TIMEOUT', '0:15', 'TimeLimit', null)).toMatchObject({ state: 'ended', exit: { signal: 'SIGTERM', detail: 'stopped by Slurm at its time limit' } });
    expect(slurmStateOf('OUT_OF_MEMORY', '0:125', 'OutOfMemory', null)).toMatchObject({ state: 'ended', exit: { detail: expect.stringContaining('memory') } });
    expect(slurmStateOf('CANCELLED', '0:0', 'None', null)).toMatchObject({ state: 'ended', exit: { detail: 'cancelled on the cluster (scancel)' } });
    expect(slurmStateOf('NODE_FAIL', '0:0', 'NodeDown', null)).toEqual({ state: 'lost' });
  });

  test('a job is submitted with sbatch, followed to its end, and found again instead of submitted twice', async (ctx) => {
    if (!cluster) return ctx.skip(unavailable ?? 'no cluster');
    const cwd = temp.make('wheelhouse-slurm-cwd-');
    const env = environment(cluster);
    const place = env.prepare('job-slurm-1');
    const spec = { command: 'echo submitted >> count; echo "hello from $SLURM_JOB_ID in $(pwd) on $SLURM_JOB_PARTITION with $SLURM_CPUS_PER_TASK cpu"; exit 3', cwd };
    const handle = await env.startDetached(place, spec);
    expect(handle).toMatchObject({ environment: 'slurm', environmentId: 'cluster', startTime: 'slurm', pid: expect.any(Number) });
    const run = follow(env, handle);
    expect(await run.ended).toEqual({ state: 'ended', exit: { exitCode: 3, signal: null } });
    expect(run.text()).toBe(`hello from ${handle.pid} in ${cwd} on ${cluster.partition} with 1 cpu\n`);
    expect(fs.readFileSync(place.logPath, 'utf8')).toBe(run.text());

    // Wheelhouse restarted before it recorded the job: the same place finds it, nothing is submitted again.
    const restarted = environment(cluster);
    const found = await restarted.startDetached(place, spec);
    expect(found.pid).toBe(handle.pid);
    expect(await jobsNamed(cluster, 'wheelhouse-job-slurm-1')).toEqual([String(handle.pid)]);
    expect(fs.readFileSync(path.join(cwd, 'count'), 'utf8')).toBe('submitted\n');
  });

  test('cancel is scancel, and the job ends cancelled', async (ctx) => {
    if (!cluster) return ctx.skip(unavailable ?? 'no cluster');
    const cwd = temp.make('wheelhouse-slurm-cwd-');
    const env = environment(cluster);
    const handle = await env.startDetached(env.prepare('job-slurm-2'), { command: 'echo started; sleep 600', cwd });
    const run = follow(env, handle);
    await run.until(/started/);
    await env.terminate(handle, 1000);
    const end = await run.ended;
    expect(end).toMatchObject({ state: 'ended', exit: { detail: 'cancelled on the cluster (scancel)' } });
    expect((await cluster.client('/usr/bin/squeue', ['-h', '-t', 'all', '-j', String(handle.pid), '-o', '%T'])).trim()).toBe('CANCELLED');
  });

  test('through a login host over SSH, and re-attached by its job id after a restart', async (ctx) => {
    if (!cluster || !sshd) return ctx.skip(unavailable ?? 'no cluster');
    const cwd = temp.make('wheelhouse-slurm-cwd-');
    const gate = path.join(cwd, 'go');
    const connect = () => {
      const connection = pinnedConnection(sshd!);
      connections.push(connection);
      return connection;
    };
    const first = connect();
    const env = environment(cluster, first);
    const handle = await env.startDetached(env.prepare('job-slurm-3'), { command: `echo one; while [ ! -e go ]; do sleep 0.05; done; echo two`, cwd });
    const run = follow(env, handle);
    await run.until(/one\n/);
    run.attachment.dispose();
    first.close();

    const again = environment(cluster, connect());
    const resumed = follow(again, handle, run.attachment.offset);
    fs.writeFileSync(gate, '');
    expect(await resumed.ended).toEqual({ state: 'ended', exit: { exitCode: 0, signal: null } });
    expect(run.text() + resumed.text()).toBe('one\ntwo\n');
  });

  test('job arrays: task ranges both ways, and the run summarising its tasks', () => {
    expect(arraySpec([3, 0, 1, 2, 7])).toBe('0-3,7');
    expect(expandTaskIds('1,4-6%2')).toEqual([1, 4, 5, 6]);
    const { records, exits } = parseArrayLook(
      ['task ArrayTaskId=0 JobState=COMPLETED ExitCode=0:0 Reason=None ', 'task ArrayTaskId=2-3 JobState=PENDING ExitCode=0:0 Reason=Resources ', 'texit 1 exit 4'].join('\n'),
    );
    const waiting = arrayStateOf([0, 1, 2, 3], records, exits, slurmStateOf);
    expect(waiting).toMatchObject({ state: 'running', detail: '4 tasks: 2 waiting, 1 completed, 1 failed (task 1)' });
    expect(waiting.state === 'running' && waiting.tasks?.map((task) => task.state)).toEqual(['completed', 'failed', 'waiting', 'waiting']);
    const ended = arrayStateOf([0, 1], records, exits, slurmStateOf);
    expect(ended).toMatchObject({ state: 'ended', exit: { exitCode: 4, detail: '2 tasks: 1 completed, 1 failed (task 1)' } });
    expect(arrayStateOf([5], [], new Map(), slurmStateOf)).toEqual({ state: 'lost' });
  });

  test('a job array of 4 is one sbatch: every task runs with its index, its lines marked, its exit its own; a retry of the failed task submits only it', async (ctx) => {
    if (!cluster) return ctx.skip(unavailable ?? 'no cluster');
    const cwd = temp.make('wheelhouse-slurm-cwd-');
    const env = environment(cluster);
    const command = 'echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT"; [ "$SLURM_ARRAY_TASK_ID" != 2 ] || [ -e fixed ] || exit 5; echo done';
    const handle = await env.startDetached(env.prepare('job-slurm-array-1'), { command, cwd, arrayIndices: [0, 1, 2, 3] });
    expect(handle.arrayIndices).toEqual([0, 1, 2, 3]);
    const run = follow(env, handle);
    const end = await run.ended;
    expect(end).toMatchObject({ state: 'ended', exit: { exitCode: 5, detail: '4 tasks: 3 completed, 1 failed (task 2)' } });
    const tasks = end.state === 'ended' ? end.exit.tasks : undefined;
    expect(tasks?.map((task) => [task.index, task.state, task.exitCode])).toEqual([
      [0, 'completed', 0],
      [1, 'completed', 0],
      [2, 'failed', 5],
      [3, 'completed', 0],
    ]);
    const lines = run.text().trim().split('\n').sort();
    expect(lines).toEqual(['[task 0] done', '[task 0] task 0 of 4', '[task 1] done', '[task 1] task 1 of 4', '[task 2] task 2 of 4', '[task 3] done', '[task 3] task 3 of 4']);
    // The tasks were reported as they changed, the last report being the end's.
    const reports = run.events.filter((event) => event.type === 'tasks');
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.at(-1)).toEqual({ type: 'tasks', tasks });
    // One Slurm job: every task under the array's id.
    expect((await cluster.client('/usr/bin/squeue', ['-h', '-t', 'all', '-j', String(handle.pid), '-r', '-o', '%K'])).trim().split('\n').sort()).toEqual(['0', '1', '2', '3']);

    fs.writeFileSync(path.join(cwd, 'fixed'), '');
    const again = await env.startDetached(env.prepare('job-slurm-array-2'), { command, cwd, arrayIndices: [2] });
    const rerun = follow(env, again);
    expect(await rerun.ended).toMatchObject({ state: 'ended', exit: { exitCode: 0, tasks: [{ index: 2, state: 'completed', exitCode: 0 }] } });
    expect(rerun.text().trim().split('\n')).toEqual(['[task 2] task 2 of 1', '[task 2] done']);
  });
});
