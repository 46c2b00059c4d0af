import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { RpcError } from '../../../shared/protocol/index.js';
import { JobTestKit } from '../../../test-support/job-test-kit.js';
import { slurmUnavailable, startSlurmCluster, type TestSlurmCluster } from '../../../test-support/slurm-cluster.js';
import { TempDirs } from '../../../test-support/temp-dir.js';

/** Jobs on a Slurm cluster this computer belongs to, through the runtime, against a real single-node cluster. */
const fileTemp = new TempDirs();
const unavailable = slurmUnavailable();
let cluster: TestSlurmCluster | undefined;
let slurmConf: string | undefined;
const kits: JobTestKit[] = [];
const homes: string[] = [];
/** Run folders the tests' jobs made on the cluster's shared home (this machine's). */
const remoteRuns = path.join(os.homedir(), '.wheelhouse', 'runs');
const jobIds: string[] = [];

beforeAll(async () => {
  if (unavailable) return;
  cluster = await startSlurmCluster(fileTemp.make('wheelhouse-slurm-'));
  // sbatch and squeue find the test cluster as any Slurm client does.
  slurmConf = process.env['SLURM_CONF'];
  process.env['SLURM_CONF'] = cluster.confPath;
});
afterAll(async () => {
  if (slurmConf === undefined) delete process.env['SLURM_CONF'];
  else process.env['SLURM_CONF'] = slurmConf;
  await cluster?.stop();
  fileTemp.cleanup();
});
afterEach(async () => {
  for (const kit of kits.splice(0)) await kit.runtime.shutdown();
  for (const jobId of jobIds.splice(0)) {
    for (const name of fs.existsSync(remoteRuns) ? fs.readdirSync(remoteRuns) : []) if (name.startsWith(`${jobId}-`)) fs.rmSync(path.join(remoteRuns, name), { recursive: true, force: true });
  }
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

function kit(): { k: JobTestKit; home: string } {
  const home = JobTestKit.home();
  homes.push(home);
  const k = new JobTestKit(home);
  kits.push(k);
  return { k, home };
}

const rpcError = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
};

describe('jobs on a Slurm cluster', () => {
  test('a job array of 4 is one row with 4 sub-runs; a retry re-submits only the task that failed', async (ctx) => {
    if (!cluster) return ctx.skip(unavailable ?? 'no cluster');
    const { k, home } = kit();
    await k.call('environment/add', { environmentId: 'lab', execServerUrl: `slurm://${home}?partition=${cluster.partition}&time=10&mem=100M&cpus=1` });

    // Arrays are Slurm's: this computer refuses them, typed, and nothing is made.
    const local = await rpcError(k.call('job/create', { kind: 'command', command: 'true', cwd: home, arrayTasks: 4 }));
    expect(local.data).toMatchObject({ reason: 'job.arrayNeedsSlurm', environmentId: 'local' });
    expect((await k.call('job/list', {})).data).toEqual([]);

    const command = 'echo "task $SLURM_ARRAY_TASK_ID"; [ "$SLURM_ARRAY_TASK_ID" != 2 ] || [ -e fixed ] || exit 7';
    const { job } = await k.call('job/create', { kind: 'command', name: 'sweep', command, cwd: home, environmentId: 'lab', arrayTasks: 4, maxAttempts: 0 });
    jobIds.push(job.id);
    expect(job).toMatchObject({ environmentId: 'lab', arrayTasks: 4 });
    const failed = await k.untilJob(job.id, 'the array to fail', (updated) => updated.status === 'failed');
    expect(failed).toMatchObject({ exitCode: 7, detail: '4 tasks: 3 completed, 1 failed (task 2)' });
    const first = (await k.call('job/runs', { jobId: job.id })).runs;
    expect(first).toHaveLength(1);
    expect(first[0]!.tasks?.map((task) => [task.index, task.state, task.exitCode])).toEqual([
      [0, 'completed', 0],
      [1, 'completed', 0],
      [2, 'failed', 7],
      [3, 'completed', 0],
    ]);
    expect(k.output(job.id, 1).split('\n').filter(Boolean).sort()).toEqual(['[task 0] task 0', '[task 1] task 1', '[task 2] task 2', '[task 3] task 3']);

    fs.writeFileSync(path.join(home, 'fixed'), '');
    await k.call('job/retry', { jobId: job.id });
    await k.untilJob(job.id, 'the retry to complete', (updated) => updated.status === 'completed' && updated.runs === 2);
    const runs = (await k.call('job/runs', { jobId: job.id })).runs;
    expect(runs[1]!.tasks).toEqual([{ index: 2, state: 'completed', exitCode: 0, detail: null }]);
    expect(runs[1]!.slurmJobId).not.toBe(runs[0]!.slurmJobId);
    expect(k.output(job.id, 2)).toBe('[task 2] task 2\n');
  });

  test('while a job runs, the cluster is renamed and its resources changed in place: the running job keeps what it asked for, the next one asks for the new', async (ctx) => {
    if (!cluster) return ctx.skip(unavailable ?? 'no cluster');
    const { k, home } = kit();
    const url = `slurm://${home}?partition=${cluster.partition}&time=10&mem=100M&cpus=1`;
    await k.call('environment/add', { environmentId: 'lab', execServerUrl: url, name: 'Lab' });
    const { job: first } = await k.call('job/create', { kind: 'command', name: 'long', command: 'echo up; while [ ! -e go ]; do sleep 0.05; done', cwd: home, environmentId: 'lab', maxAttempts: 0 });
    jobIds.push(first.id);
    await k.until('the first job to print', () => k.output(first.id, 1).includes('up'));

    // The name and the resources for new jobs: saved at once, though a job runs there.
    expect(await k.call('environment/add', { environmentId: 'lab', execServerUrl: url, name: 'Lab cluster', slurm: { timeLimit: '20', memory: '200M' } })).toEqual({});
    expect((await k.call('environment/list', {})).data[1]).toMatchObject({ name: 'Lab cluster', slurm: { partition: cluster.partition, timeLimit: '20', memory: '200M', cpus: 1 } });
    // Its folder is where jobs' work lives: refused while the job runs, naming it.
    const moved = await rpcError(k.call('environment/add', { environmentId: 'lab', execServerUrl: `slurm:///tmp?partition=${cluster.partition}`, name: 'Lab cluster' }));
    expect(moved.data).toMatchObject({ reason: 'environment.inUse', jobs: [{ jobId: first.id, name: 'long', status: 'running' }] });

    const { job: second } = await k.call('job/create', { kind: 'command', name: 'next', command: 'echo next', cwd: home, environmentId: 'lab', maxAttempts: 0 });
    jobIds.push(second.id);
    await k.untilJob(second.id, 'the second job to complete', (updated) => updated.status === 'completed');
    const slurmIdOf = async (jobId: string) => (await k.call('job/runs', { jobId })).runs[0]!.slurmJobId!;
    const asked = async (jobId: string) => {
      const shown = await cluster!.client('/usr/bin/scontrol', ['show', 'job', '-o', String(await slurmIdOf(jobId))]);
      return { time: shown.match(/TimeLimit=(\S+)/)?.[1], memory: shown.match(/MinMemoryNode=(\S+)/)?.[1] };
    };
    expect(await asked(first.id)).toEqual({ time: '00:10:00', memory: '100M' });
    expect(await asked(second.id)).toEqual({ time: '00:20:00', memory: '200M' });

    // The running job was followed all along on the same environment: it ends as it should.
    fs.writeFileSync(path.join(home, 'go'), '');
    await k.untilJob(first.id, 'the first job to complete', (updated) => updated.status === 'completed');
    expect((await k.call('job/runs', { jobId: first.id })).runs).toHaveLength(1);
  });

  test('a job the cluster holds says it is waiting for the cluster, and why, until it runs', async (ctx) => {
    if (!cluster) return ctx.skip(unavailable ?? 'no cluster');
    const { k, home } = kit();
    // Each job asks for every CPU of the one node, so the second waits while the first runs.
    await k.call('environment/add', { environmentId: 'lab', execServerUrl: `slurm://${home}?partition=${cluster.partition}&time=10&mem=100M&cpus=${os.availableParallelism()}` });
    const { job: first } = await k.call('job/create', { kind: 'command', name: 'hog', command: 'echo up; while [ ! -e go ]; do sleep 0.05; done', cwd: home, environmentId: 'lab', maxAttempts: 0 });
    jobIds.push(first.id);
    await k.until('the first job to print', () => k.output(first.id, 1).includes('up'));
    const { job: second } = await k.call('job/create', { kind: 'command', name: 'held', command: 'echo ran', cwd: home, environmentId: 'lab', maxAttempts: 0 });
    jobIds.push(second.id);
    const held = await k.untilJob(second.id, 'the second job to say it waits', (updated) => updated.detail?.startsWith('waiting for the cluster') ?? false);
    expect(held.status).toBe('running');
    expect(held.detail).toMatch(/^waiting for the cluster( \(\w+\))?$/);

    fs.writeFileSync(path.join(home, 'go'), '');
    const done = await k.untilJob(second.id, 'the second job to complete', (updated) => updated.status === 'completed');
    expect(done.detail ?? '').not.toContain('waiting for the cluster');
    expect(k.output(second.id, 1)).toBe('ran\n');
  });
});
