import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../shared/protocol/index.js';
import { startAppServer, type AppServerProcess } from '../../test-support/app-server-process.js';
import type { Received } from '../../test-support/message-inbox.js';
import { slurmUnavailable, startSlurmCluster, type TestSlurmCluster } from '../../test-support/slurm-cluster.js';
import { TempDirs } from '../../test-support/temp-dir.js';

/**
 * Kill -9 of the host while a Slurm job array of 4 runs on a real single-node
 * cluster (slurm-wlm + munge): the built `wheelhouse app-server`, SIGKILL, a
 * fresh process on the same home. The array must be found again by its job id
 * and followed to its end: one submission, every task once, each its own end.
 */
const fileTemp = new TempDirs();
const temp = new TempDirs();
const unavailable = slurmUnavailable();
let cluster: TestSlurmCluster | undefined;
/** Run folders the job made on the cluster's shared home (this machine's). */
const remoteRuns = path.join(os.homedir(), '.wheelhouse', 'runs');
const jobIds: string[] = [];
/** The app-servers of the test (the cluster's daemons are children too, and must outlive each test). */
const apps: AppServerProcess[] = [];

beforeAll(async () => {
  if (unavailable) return;
  cluster = await startSlurmCluster(fileTemp.make('wheelhouse-slurm-'));
});
afterAll(async () => {
  await cluster?.stop();
  fileTemp.cleanup();
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.process.stop('SIGKILL');
  for (const jobId of jobIds.splice(0)) {
    for (const name of fs.existsSync(remoteRuns) ? fs.readdirSync(remoteRuns) : []) if (name.startsWith(`${jobId}-`)) fs.rmSync(path.join(remoteRuns, name), { recursive: true, force: true });
  }
  temp.cleanup();
});

/** The job as the first job/updated matching `match` says. */
async function jobUpdate(app: AppServerProcess, jobId: string, match: (job: Job) => boolean, what: string): Promise<Job> {
  const jobOf = (received: Received) => (received.kind === 'notification' && received.message.method === 'job/updated' ? (received.message.params as { job: Job }).job : null);
  return jobOf(
    await app.peer.inbox.take((received) => {
      const job = jobOf(received);
      return job !== null && job.id === jobId && match(job);
    }, what),
  )!;
}

/** Every array record slurmctld holds (ended ones too): `<array job id> <task>` per task. */
async function arrayRecords(slurm: TestSlurmCluster): Promise<string[]> {
  return (await slurm.client('/usr/bin/squeue', ['-h', '-t', 'all', '-r', '-o', '%F %K'])).trim().split('\n').filter(Boolean).sort();
}

describe('a Slurm job array when its host is killed with SIGKILL', () => {
  it('is re-attached by its job id, never submitted again: each task runs once, keeps its lines and ends with its own state', async (ctx) => {
    if (!cluster) return ctx.skip(unavailable ?? 'no cluster');
    const home = temp.make('wheelhouse-slurm-kill-');
    const start = () => {
      const started = startAppServer(home, { env: cluster!.env });
      apps.push(started);
      return started;
    };
    let app = start();
    await app.peer.initialize();
    await app.peer.call('environment/add', { environmentId: 'lab', execServerUrl: `slurm://${home}?partition=${cluster.partition}&time=10&mem=100M&cpus=1`, name: 'Lab' });
    // Each task counts its starts, prints, waits for `go`, prints again; task 3 fails with its own code.
    const command =
      'i=$SLURM_ARRAY_TASK_ID; echo started >> "starts-$i"; echo "task $i up"; while [ ! -e go ]; do sleep 0.05; done; echo "task $i done"; [ "$i" != 3 ] || exit 3';
    const { job } = await app.peer.call('job/create', { kind: 'command', name: 'sweep', command, cwd: home, environmentId: 'lab', arrayTasks: 4, maxAttempts: 0 });
    jobIds.push(job.id);
    // Killed once the cluster runs the array and a task is under way (the others may still wait for a CPU).
    await app.peer.inbox.take((received) => {
      if (received.kind !== 'notification' || received.message.method !== 'job/output/delta') return false;
      const params = received.message.params as { jobId: string; delta: string };
      return params.jobId === job.id && /task \d up/.test(params.delta);
    }, 'a task of the array to print');
    const { runs: before } = await app.peer.call('job/runs', { jobId: job.id });
    const slurmJobId = before[0]!.slurmJobId!;
    expect(slurmJobId).toEqual(expect.any(Number));

    app.process.child.kill('SIGKILL');
    expect((await app.exited).signal).toBe('SIGKILL');
    // The array is Slurm's, not the host's: it goes on without Wheelhouse.
    expect((await cluster.client('/usr/bin/squeue', ['-h', '-j', String(slurmJobId), '-o', '%T'])).trim()).not.toBe('');

    app = start();
    await app.peer.initialize();
    const { job: read, history } = await app.peer.call('job/read', { jobId: job.id });
    expect(read).toMatchObject({ status: 'running', runs: 1, environmentId: 'lab', arrayTasks: 4 });
    expect(history.at(-1)?.phase).toBe('reattached');
    fs.writeFileSync(path.join(home, 'go'), '');
    const ended = await jobUpdate(app, job.id, (updated) => updated.status === 'failed', 'the array to end');
    expect(ended).toMatchObject({ runs: 1, exitCode: 3, detail: '4 tasks: 3 completed, 1 failed (task 3)' });

    // One submission: one array job, its four tasks, nothing else on the cluster (sacct needs slurmdbd, which this cluster has not; slurmctld keeps ended jobs for the file).
    expect(await arrayRecords(cluster)).toEqual([0, 1, 2, 3].map((task) => `${slurmJobId} ${task}`));
    const { runs } = await app.peer.call('job/runs', { jobId: job.id });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ slurmJobId });
    expect(runs[0]!.tasks?.map((task) => [task.index, task.state, task.exitCode])).toEqual([
      [0, 'completed', 0],
      [1, 'completed', 0],
      [2, 'completed', 0],
      [3, 'failed', 3],
    ]);
    // Each task ran once and its lines are in the log once, before and after the kill alike.
    for (const task of [0, 1, 2, 3]) expect(fs.readFileSync(path.join(home, `starts-${task}`), 'utf8'), `task ${task} started once`).toBe('started\n');
    const log = (await app.peer.call('job/log', { jobId: job.id, limit: 1024 * 1024 })).data;
    expect(log.split(/\r?\n/).filter(Boolean).sort()).toEqual([0, 1, 2, 3].flatMap((task) => [`[task ${task}] task ${task} done`, `[task ${task}] task ${task} up`]));

    app.endInput();
    expect((await app.exited).code, app.process.stderr()).toBe(0);
  }, 180_000);
});
