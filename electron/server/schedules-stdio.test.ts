import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleCreateParams, serverNotifications, type Job, type Schedule } from '../../shared/protocol/index.js';
import { startAppServer } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { expectNoRunsLeft } from '../../test-support/detached-runs.js';
import { TempDirs } from '../../test-support/temp-dir.js';

/** schedule/* over stdio against the built `wheelhouse app-server`: each message checked against its declared schema. */
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

describe('schedules over stdio', () => {
  it('create, Run now (a normal job linked by scheduleId), update, pause, delete; bad input is a typed error naming the field', async () => {
    home = temp.make('wheelhouse-schedules-stdio-');
    const app = startAppServer(home);
    const { peer } = app;
    await peer.initialize();
    const params = { name: 'hourly check', job: { kind: 'command' as const, command: `echo hi > ${path.join(home, 'out')}`, cwd: home }, cron: '0 * * * *', timeZone: 'UTC', notify: 'always' as const };
    expect(ScheduleCreateParams.safeParse(params).success).toBe(true);
    const { schedule } = await peer.call('schedule/create', params);
    expect(schedule).toMatchObject({ name: 'hourly check', cron: '0 * * * *', timeZone: 'UTC', overlap: 'skip', missed: 'runOnce', notify: 'always', paused: false });
    expect(schedule.nextRunAt! % 3_600_000).toBe(0);
    const created = await peer.inbox.notification('schedule/updated');
    expect(serverNotifications['schedule/updated'].params.parse(created.params).schedule.id).toBe(schedule.id);

    const { jobId } = await peer.call('schedule/runNow', { scheduleId: schedule.id });
    const done = await peer.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'job/updated' && (r.message.params as { job: Job }).job.id === jobId && (r.message.params as { job: Job }).job.status === 'completed',
      'the scheduled job to complete',
    );
    expect((done.message as { params: { job: Job } }).params.job).toMatchObject({ scheduleId: schedule.id, scheduleNotify: 'always' });
    const after = await peer.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'schedule/updated' && (r.message.params as { schedule: Schedule }).schedule.history[0]?.outcome === 'completed',
      'the history to show the run',
    );
    expect((after.message as { params: { schedule: Schedule } }).params.schedule.history).toEqual([{ slotAt: expect.any(Number), trigger: 'runNow', jobId, outcome: 'completed', detail: null }]);

    const bad = await peer.call('schedule/create', { ...params, cron: '0 25 * * *' }).catch((error: unknown) => error);
    expect(bad).toMatchObject({ code: -32602, message: expect.stringContaining('cron:'), data: { issues: [{ path: ['cron'] }] } });
    const unknownField = await peer.call('schedule/create', { ...params, every: 'day' } as typeof params).catch((error: unknown) => error);
    expect(unknownField).toMatchObject({ code: -32602 });
    expect((await peer.call('schedule/list', {})).data).toHaveLength(1);

    const updated = await peer.call('schedule/update', { scheduleId: schedule.id, intervalMs: 5000, overlap: 'queue' });
    expect(updated.schedule).toMatchObject({ cron: null, intervalMs: 5000, overlap: 'queue' });
    expect((await peer.call('schedule/pause', { scheduleId: schedule.id })).schedule).toMatchObject({ paused: true, nextRunAt: null });
    expect(await peer.call('schedule/delete', { scheduleId: schedule.id })).toEqual({ deleted: true });
    await expect(peer.call('schedule/runNow', { scheduleId: schedule.id })).rejects.toMatchObject({ code: -32600, data: { scheduleId: schedule.id } });
    expect((await peer.call('job/read', { jobId: jobId! })).job.scheduleId).toBe(schedule.id);
    app.endInput();
    await app.exited;
  });
});
