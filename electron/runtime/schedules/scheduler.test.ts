import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../../shared/protocol/index.js';
import { JobTestKit, useJobKits } from '../../../test-support/job-test-kit.js';
import { ManualClock } from '../../../test-support/manual-clock.js';

/** Schedules on a driven clock (time is what is tested); each run is a real job with a real process. */
const jobKits = useJobKits();
const newHome = jobKits.newHome;

function kit(home: string, clock: ManualClock): JobTestKit {
  return jobKits.kit(home, { jobClock: clock, jobConcurrency: 8 });
}
/** A restart: the old runtime closes as a crash would leave it, a new one opens the same home. */
function reopen(k: JobTestKit, clock: ManualClock, whileClosed: () => void = () => undefined): JobTestKit {
  k.runtime.close();
  jobKits.release(k);
  whileClosed();
  return kit(k.home, clock);
}

const MINUTE = 60_000;
/** The newest schedule/updated of a schedule matching `match`. */
function untilSchedule(k: JobTestKit, scheduleId: string, what: string, match: (s: Schedule) => boolean): Promise<Schedule> {
  return k.until(what, () =>
    k.notifications.findLast((n) => n.method === 'schedule/updated' && n.params.schedule.id === scheduleId && match(n.params.schedule))?.params as { schedule: Schedule } | undefined,
  ).then((p) => p.schedule);
}
const outcomes = (s: Schedule) => s.history.map((run) => run.outcome);
/** A command that appends a line to a file each time it runs (how many times a slot ran, counted on disk). */
const marker = (home: string, text = 'ran') => `echo ${text} >> ${path.join(home, 'runs.txt')}`;
const runsOnDisk = (home: string) => (fs.existsSync(path.join(home, 'runs.txt')) ? fs.readFileSync(path.join(home, 'runs.txt'), 'utf8').trim().split('\n').length : 0);

describe('schedules', () => {
  it('run their job at each slot as a normal job linked back to the schedule; pause stops the slots and resume goes on from now', async () => {
    const clock = new ManualClock();
    const home = newHome();
    const k = kit(home, clock);
    const t0 = clock.now();
    const { schedule } = await k.call('schedule/create', { name: 'every minute', job: { kind: 'command', command: marker(home), cwd: home }, intervalMs: MINUTE });
    expect(schedule).toMatchObject({ nextRunAt: t0 + MINUTE, overlap: 'skip', missed: 'runOnce', notify: 'failure', paused: false, history: [] });

    clock.advance(MINUTE);
    const first = await untilSchedule(k, schedule.id, 'first run completed', (s) => s.history[0]?.outcome === 'completed');
    expect(first.nextRunAt).toBe(t0 + 2 * MINUTE);
    const jobId = first.history[0]!.jobId!;
    const { job } = await k.call('job/read', { jobId });
    expect(job).toMatchObject({ scheduleId: schedule.id, scheduleNotify: 'failure', status: 'completed' });
    expect(first.history[0]).toMatchObject({ slotAt: t0 + MINUTE, trigger: 'clock' });

    const paused = await k.call('schedule/pause', { scheduleId: schedule.id });
    expect(paused.schedule).toMatchObject({ paused: true, nextRunAt: null });
    clock.advance(5 * MINUTE);
    expect((await k.call('schedule/read', { scheduleId: schedule.id })).schedule.history).toHaveLength(1);
    const resumed = await k.call('schedule/resume', { scheduleId: schedule.id });
    // Slots while paused are not owed, nor recorded as missed: the next is the first after now.
    expect(resumed.schedule).toMatchObject({ paused: false, nextRunAt: t0 + 7 * MINUTE, lastRunAt: t0 + MINUTE });
    clock.advance(MINUTE);
    const second = await untilSchedule(k, schedule.id, 'second run', (s) => s.history.length === 2 && s.history[1]!.outcome === 'completed');
    expect(second.history.map((run) => run.slotAt)).toEqual([t0 + MINUTE, t0 + 7 * MINUTE]);
    expect(runsOnDisk(home)).toBe(2);
  });

  it('Run now starts a job at once without moving the next slot; bad timing is refused naming the field, nothing made', async () => {
    const clock = new ManualClock();
    const home = newHome();
    const k = kit(home, clock);
    const { schedule } = await k.call('schedule/create', { name: 'nightly', job: { kind: 'command', command: marker(home), cwd: home }, cron: '0 2 * * *', timeZone: 'Europe/Berlin' });
    const ran = await k.call('schedule/runNow', { scheduleId: schedule.id });
    expect(ran.jobId).toMatch(/^job-/);
    expect(ran.schedule.nextRunAt).toBe(schedule.nextRunAt);
    await untilSchedule(k, schedule.id, 'run now completed', (s) => s.history[0]?.outcome === 'completed' && s.history[0].trigger === 'runNow');

    await expect(k.call('schedule/create', { name: 'bad', job: { kind: 'command', command: 'true', cwd: home }, cron: '61 * * * *' })).rejects.toMatchObject({
      code: -32602,
      data: { issues: [{ path: ['cron'], message: expect.stringMatching(/minute/) }] },
    });
    await expect(k.call('schedule/create', { name: 'fast', job: { kind: 'command', command: 'true', cwd: home }, intervalMs: 999 })).rejects.toMatchObject({
      code: -32602,
      data: { issues: [{ path: ['intervalMs'] }] },
    });
    await expect(k.call('schedule/create', { name: 'both', job: { kind: 'command', command: 'true', cwd: home }, intervalMs: 5000, cron: '* * * * *' })).rejects.toMatchObject({ code: -32602 });
    await expect(k.call('schedule/create', { name: 'zone', job: { kind: 'command', command: 'true', cwd: home }, cron: '* * * * *', timeZone: 'Mars/Olympus' })).rejects.toMatchObject({
      data: { issues: [{ path: ['timeZone'] }] },
    });
    await expect(k.call('schedule/read', { scheduleId: 'schedule-nope' })).rejects.toMatchObject({ code: -32600, message: 'schedule not found: schedule-nope' });
    expect((await k.call('schedule/list', {})).data.map((s) => s.name)).toEqual(['nightly']);
  });

  it('overlap "skip" skips a slot while the run before is going; "queue" lets one wait and starts it when that run ends; "allow" runs both', async () => {
    const clock = new ManualClock();
    const home = newHome();
    const k = kit(home, clock);
    const gate = path.join(home, 'gate');
    // Runs until the gate file exists: the test decides when a run ends.
    const job = { kind: 'command' as const, command: `while [ ! -e ${gate} ]; do sleep 0.05; done; ${marker(home)}`, cwd: home };
    const skip = (await k.call('schedule/create', { name: 'skip', job, intervalMs: MINUTE, overlap: 'skip' })).schedule;
    const queue = (await k.call('schedule/create', { name: 'queue', job, intervalMs: MINUTE, overlap: 'queue' })).schedule;
    const allow = (await k.call('schedule/create', { name: 'allow', job, intervalMs: MINUTE, overlap: 'allow' })).schedule;

    clock.advance(MINUTE);
    for (const s of [skip, queue, allow]) await untilSchedule(k, s.id, `${s.name}: first running`, (x) => x.history[0]?.outcome === 'running');
    clock.advance(MINUTE);
    clock.advance(MINUTE);
    expect(outcomes(await untilSchedule(k, skip.id, 'skip: two skipped', (x) => x.history.length === 3))).toEqual(['running', 'skipped', 'skipped']);
    const queued = await untilSchedule(k, queue.id, 'queue: one waits, one skipped', (x) => x.history.length === 3);
    expect(outcomes(queued)).toEqual(['running', 'queued', 'skipped']);
    expect(queued.history[2]!.detail).toBe('skipped: a run already waits for the one before');
    await untilSchedule(k, allow.id, 'allow: three running', (x) => x.history.length === 3 && x.history.every((r) => r.outcome === 'running'));

    fs.writeFileSync(gate, '');
    expect(outcomes(await untilSchedule(k, queue.id, 'queue: the waiting run ran after', (x) => x.history[1]?.outcome === 'completed'))).toEqual(['completed', 'completed', 'skipped']);
    await untilSchedule(k, allow.id, 'allow: all completed', (x) => x.history.every((r) => r.outcome === 'completed'));
    await untilSchedule(k, skip.id, 'skip: the one completed', (x) => x.history[0]?.outcome === 'completed');
    // skip 1 + queue 2 + allow 3.
    expect(runsOnDisk(home)).toBe(6);
  });

  it('missed slots while Wheelhouse was not running: runOnce runs the newest once, skip none, runAll up to the limit; history says why', async () => {
    const clock = new ManualClock();
    const home = newHome();
    let k = kit(home, clock);
    const job = (name: string) => ({ kind: 'command' as const, command: marker(home, name), cwd: home });
    const once = (await k.call('schedule/create', { name: 'once', job: job('once'), intervalMs: MINUTE, missed: 'runOnce' })).schedule;
    const skip = (await k.call('schedule/create', { name: 'skip', job: job('skip'), intervalMs: MINUTE, missed: 'skip' })).schedule;
    const all = (await k.call('schedule/create', { name: 'all', job: job('all'), intervalMs: MINUTE, missed: 'runAll', missedLimit: 3 })).schedule;

    k = reopen(k, clock, () => clock.advance(10 * MINUTE));

    const onceAfter = await untilSchedule(k, once.id, 'runOnce', (s) => s.history.at(-1)?.outcome === 'completed');
    expect(outcomes(onceAfter)).toEqual([...Array(9).fill('missed'), 'completed']);
    expect(onceAfter.history[0]!.detail).toBe('missed (Wheelhouse was not running)');
    expect(onceAfter.history.at(-1)).toMatchObject({ trigger: 'missed', slotAt: once.createdAt + 10 * MINUTE });

    const skipAfter = (await k.call('schedule/read', { scheduleId: skip.id })).schedule;
    expect(outcomes(skipAfter)).toEqual(Array(10).fill('missed'));
    expect(skipAfter.nextRunAt).toBe(skip.createdAt + 11 * MINUTE);

    // runAll: the newest three, one after another (they do not overlap).
    const allAfter = await untilSchedule(k, all.id, 'runAll', (s) => s.history.filter((r) => r.outcome === 'completed').length === 3);
    expect(outcomes(allAfter)).toEqual([...Array(7).fill('missed'), 'completed', 'completed', 'completed']);
    const lines = fs.readFileSync(path.join(home, 'runs.txt'), 'utf8').trim().split('\n').sort();
    expect(lines).toEqual(['all', 'all', 'all', 'once']);
  });

  it('a claim whose job was never made (a crash between claim and start) starts once at the next start; one whose job exists never again', async () => {
    const clock = new ManualClock();
    const home = newHome();
    let k = kit(home, clock);
    const { schedule } = await k.call('schedule/create', { name: 'claimed', job: { kind: 'command', command: marker(home), cwd: home }, intervalMs: MINUTE });
    // Stand in for the crash: the claim lands, the job engine never gets the call.
    const engine = k.runtime.jobs;
    const create = engine.create.bind(engine);
    engine.create = () => new Promise(() => undefined);
    clock.advance(MINUTE);
    const claimed = await untilSchedule(k, schedule.id, 'claimed', (s) => s.history.length === 1);
    expect(claimed.history[0]).toMatchObject({ outcome: 'queued' });
    engine.create = create;
    k = reopen(k, clock);
    const after = await untilSchedule(k, schedule.id, 'started after restart', (s) => s.history[0]?.outcome === 'completed');
    expect(after.history[0]!.jobId).toBe(claimed.history[0]!.jobId);
    k = reopen(k, clock);
    expect((await k.call('schedule/read', { scheduleId: schedule.id })).schedule.history).toMatchObject([{ outcome: 'completed', jobId: claimed.history[0]!.jobId }]);
    expect(runsOnDisk(home)).toBe(1);
  });

  it('delete with a run in progress: the run goes on and keeps its schedule id; the schedule is gone for every client', async () => {
    const clock = new ManualClock();
    const home = newHome();
    const k = kit(home, clock);
    const gate = path.join(home, 'gate');
    const { schedule } = await k.call('schedule/create', { name: 'long', job: { kind: 'command', command: `while [ ! -e ${gate} ]; do sleep 0.05; done`, cwd: home }, intervalMs: MINUTE });
    const { jobId } = await k.call('schedule/runNow', { scheduleId: schedule.id });
    await k.untilJob(jobId!, 'running', (j) => j.status === 'running');
    expect(await k.call('schedule/delete', { scheduleId: schedule.id })).toEqual({ deleted: true });
    expect(k.notifications.some((n) => n.method === 'schedule/deleted' && n.params.scheduleId === schedule.id)).toBe(true);
    clock.advance(5 * MINUTE);
    fs.writeFileSync(gate, '');
    const done = await k.untilJob(jobId!, 'completed', (j) => j.status === 'completed');
    expect(done.scheduleId).toBe(schedule.id);
    expect((await k.call('schedule/list', {})).data).toEqual([]);
    expect((await k.call('job/list', {})).data).toHaveLength(1);
  });

  it('a daily 02:30 in Europe/Berlin on a driven clock: the spring-forward day runs at 03:00 CEST, the fall-back day once', async () => {
    const clock = new ManualClock(Date.parse('2026-03-28T12:00:00Z'));
    const home = newHome();
    const k = kit(home, clock);
    const { schedule } = await k.call('schedule/create', { name: 'dst', job: { kind: 'command', command: 'true', cwd: home }, cron: '30 2 * * *', timeZone: 'Europe/Berlin' });
    expect(new Date(schedule.nextRunAt!).toISOString()).toBe('2026-03-29T01:00:00.000Z');
    clock.advance(Date.parse('2026-03-29T01:00:00Z') - clock.now());
    const spring = await untilSchedule(k, schedule.id, 'spring-forward run', (s) => s.history[0]?.outcome === 'completed');
    expect(spring.history[0]).toMatchObject({ slotAt: Date.parse('2026-03-29T01:00:00Z'), trigger: 'clock' });
    expect(new Date(spring.nextRunAt!).toISOString()).toBe('2026-03-30T00:30:00.000Z');
    await k.call('schedule/pause', { scheduleId: schedule.id });
    clock.advance(Date.parse('2026-10-24T12:00:00Z') - clock.now());
    const resumed = (await k.call('schedule/resume', { scheduleId: schedule.id })).schedule;
    expect(new Date(resumed.nextRunAt!).toISOString()).toBe('2026-10-25T00:30:00.000Z');
    clock.advance(Date.parse('2026-10-26T00:00:00Z') - clock.now());
    // 02:30 came twice that night (CEST, then CET): one run.
    const autumn = await untilSchedule(k, schedule.id, 'fall-back run', (s) => s.history.length === 2 && s.history.every((r) => r.outcome === 'completed'));
    expect(autumn.history.map((r) => new Date(r.slotAt).toISOString())).toEqual(['2026-03-29T01:00:00.000Z', '2026-10-25T00:30:00.000Z']);
    expect(new Date(autumn.nextRunAt!).toISOString()).toBe('2026-10-26T01:30:00.000Z');
  });

  it('created paused, then resumed: nothing from before the resume is run or counted as missed', async () => {
    const clock = new ManualClock();
    const home = newHome();
    const k = kit(home, clock);
    const { schedule } = await k.call('schedule/create', { name: 'later', job: { kind: 'command', command: 'true', cwd: home }, intervalMs: MINUTE, paused: true, missed: 'runAll' });
    expect(schedule).toMatchObject({ paused: true, nextRunAt: null });
    clock.advance(5 * MINUTE + 30_000);
    await k.call('schedule/resume', { scheduleId: schedule.id });
    clock.advance(30_000);
    const ran = await untilSchedule(k, schedule.id, 'first run after resume', (s) => s.history[0]?.outcome === 'completed');
    expect(ran.history).toMatchObject([{ slotAt: schedule.createdAt + 6 * MINUTE, trigger: 'clock' }]);
  });
});
