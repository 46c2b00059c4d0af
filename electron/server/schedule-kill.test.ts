import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Job, Schedule } from '../../shared/protocol/index.js';
import { startAppServer, type AppServerProcess } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { expectNoRunsLeft } from '../../test-support/detached-runs.js';
import { repoRoot } from '../../test-support/paths.js';
import { TempDirs } from '../../test-support/temp-dir.js';

/**
 * "A slot never runs twice, even across a crash during dispatch", against the
 * built `wheelhouse app-server`: the process kills itself with SIGKILL at an
 * exact point of Run now (test-support/kill-at-statement.mjs), a fresh process
 * opens the same home, and the command's own marker file counts its starts.
 */
const temp = new TempDirs();
let home = '';
afterEach(async () => {
  await killAllChildren();
  try {
    if (home) expectNoRunsLeft(home);
  } finally {
    home = '';
    temp.cleanup();
  }
});

const killAt = path.join(repoRoot, 'test-support', 'kill-at-statement.mjs');

function startKilling(sql: string, values: string): AppServerProcess {
  return startAppServer(home, { nodeArgs: ['--import', killAt], env: { WHEELHOUSE_KILL_AT_SQL: sql, WHEELHOUSE_KILL_AT_VALUES: values } });
}

async function createSchedule(app: AppServerProcess): Promise<Schedule> {
  await app.peer.initialize();
  const command = `echo started >> ${path.join(home, 'starts')}`;
  return (await app.peer.call('schedule/create', { name: 'nightly', job: { kind: 'command', command, cwd: home, maxAttempts: 0 }, cron: '0 3 * * *' })).schedule;
}

const startsOnDisk = () => (fs.existsSync(path.join(home, 'starts')) ? fs.readFileSync(path.join(home, 'starts'), 'utf8').trim().split('\n').length : 0);

/** After the restart: the slot's one job completes, the history holds one slot, and the command ran once. */
async function expectOneRun(scheduleId: string): Promise<void> {
  const app = startAppServer(home);
  await app.peer.initialize();
  const slot = await waitForSlot(app, scheduleId);
  expect(slot).toMatchObject({ trigger: 'runNow', outcome: 'completed' });
  const jobs = (await app.peer.call('job/list', {})).data;
  expect(jobs.map((job: Job) => [job.id, job.scheduleId, job.runs])).toEqual([[slot.jobId, scheduleId, 1]]);
  expect(startsOnDisk()).toBe(1);
  await app.peer.call('schedule/pause', { scheduleId });
  app.endInput();
  await app.exited;
}

async function waitForSlot(app: AppServerProcess, scheduleId: string): Promise<Schedule['history'][number]> {
  for (;;) {
    const { schedule } = await app.peer.call('schedule/read', { scheduleId });
    expect(schedule.history.length).toBeLessThanOrEqual(1);
    if (schedule.history[0]?.outcome === 'completed') return schedule.history[0];
    await app.peer.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'schedule/updated' && (r.message.params as { schedule: Schedule }).schedule.id === scheduleId,
      'the slot to complete',
    );
  }
}

describe('a schedule slot across kill -9 during dispatch', () => {
  it('killed after the claim, before its job exists: the next start runs it once under the claimed job id', async () => {
    home = temp.make('wheelhouse-schedule-kill-');
    const app = startKilling('^\\s*INSERT INTO jobs', '"scheduleId":"schedule-');
    const schedule = await createSchedule(app);
    void app.peer.call('schedule/runNow', { scheduleId: schedule.id }).catch(() => undefined);
    expect((await app.exited).signal).toBe('SIGKILL');

    // What the crash left: a durable claim naming a job that was never made, and nothing ran.
    const db = new Database(path.join(home, 'state.sqlite'), { readonly: true });
    const claims = db.prepare('SELECT job_id AS jobId, outcome FROM schedule_runs').all() as { jobId: string; outcome: string | null }[];
    const jobs = db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number };
    db.close();
    expect(claims).toEqual([{ jobId: expect.stringMatching(/^job-/), outcome: null }]);
    expect(jobs.n).toBe(0);
    expect(startsOnDisk()).toBe(0);

    await expectOneRun(schedule.id);
  });

  it('killed after its job was made, before the slot was marked started: the next start leaves it to the job engine, never a second job', async () => {
    home = temp.make('wheelhouse-schedule-kill-');
    const app = startKilling('^\\s*UPDATE schedule_runs SET outcome', '"started"');
    const schedule = await createSchedule(app);
    void app.peer.call('schedule/runNow', { scheduleId: schedule.id }).catch(() => undefined);
    expect((await app.exited).signal).toBe('SIGKILL');

    const db = new Database(path.join(home, 'state.sqlite'), { readonly: true });
    const claims = db.prepare('SELECT job_id AS jobId, outcome FROM schedule_runs').all() as { jobId: string; outcome: string | null }[];
    const jobs = db.prepare('SELECT id FROM jobs').all() as { id: string }[];
    db.close();
    expect(claims).toHaveLength(1);
    expect(claims[0]!.outcome).toBeNull();
    expect(jobs.map((job) => job.id)).toEqual([claims[0]!.jobId]);

    await expectOneRun(schedule.id);
  });
});
