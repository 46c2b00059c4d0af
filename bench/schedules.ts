/**
 * The scheduler with 1,000 schedules beside 1 (the baseline), on a real SQLite
 * file: the time to find the next due slot, and to claim and dispatch one due
 * slot (the claim transaction, the history read, the call that creates the
 * job) while the others stay armed; then the idle CPU of 1,000 armed schedules
 * on the system clock. Job creation is counted, not run: what is measured is
 * the scheduler's own cost, not 1,000 processes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventLog } from '../electron/runtime/event-log.js';
import { systemClock } from '../electron/runtime/jobs/job-clock.js';
import { Scheduler } from '../electron/runtime/schedules/scheduler.js';
import { StateStore } from '../electron/store/state-store.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { ms, quantile } from './stats.js';

export interface SchedulerFigures {
  readonly schedules: number;
  readonly nextDueMedianMs: number;
  readonly nextDueP99Ms: number;
  readonly dispatchMedianMs: number;
  readonly dispatchP99Ms: number;
}

function open(dir: string, clock: typeof systemClock, count: { created: number }) {
  const store = StateStore.open(path.join(dir, 'state.sqlite'));
  const events = new EventLog(store, StateStore.inMemory());
  let n = 0;
  const scheduler = new Scheduler({
    store,
    events,
    clock,
    newId: () => `bench-${n++}`,
    jobs: { create: () => Promise.resolve(void (count.created += 1)) },
  });
  scheduler.recover();
  return { store, events, scheduler };
}

async function measure(schedules: number, root: string): Promise<SchedulerFigures> {
  const dir = fs.mkdtempSync(path.join(root, 'sched-'));
  const clock = new ManualClock();
  const count = { created: 0 };
  const { store, events, scheduler } = open(dir, clock, count);
  const job = { kind: 'command' as const, command: 'true', cwd: dir };
  // Anchors 1 ms apart: each step of the clock makes exactly one slot due.
  for (let i = 0; i < schedules; i += 1) {
    scheduler.create({ name: `s${i}`, job, intervalMs: 60_000 });
    clock.advance(1);
  }
  const nextDue: number[] = [];
  for (let i = 0; i < 1000; i += 1) {
    const t0 = performance.now();
    scheduler.nextDueAt();
    nextDue.push(performance.now() - t0);
  }
  // Each step moves the clock to the next due slot: one slot is claimed and dispatched while the rest stay armed.
  const dispatch: number[] = [];
  for (let i = 0; i < 1000; i += 1) {
    const due = scheduler.nextDueAt()!;
    clock.advance(Math.max(0, due - clock.now() - 1));
    const t0 = performance.now();
    clock.advance(1);
    dispatch.push(performance.now() - t0);
    // Lets the job creations of this step settle, as the event loop would between two slots.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setImmediate(resolve));
  nextDue.sort((a, b) => a - b);
  dispatch.sort((a, b) => a - b);
  scheduler.stop();
  events.close();
  store.close();
  if (count.created === 0) throw new Error('no slot was dispatched');
  return { schedules, nextDueMedianMs: ms(quantile(nextDue, 0.5)), nextDueP99Ms: ms(quantile(nextDue, 0.99)), dispatchMedianMs: ms(quantile(dispatch, 0.5)), dispatchP99Ms: ms(quantile(dispatch, 0.99)) };
}

/** CPU used by this process over `windowMs` with 1,000 schedules armed on the system clock (none due). */
async function idleCpu(root: string, windowMs: number): Promise<{ schedules: number; cpuPercent: number }> {
  const dir = fs.mkdtempSync(path.join(root, 'idle-'));
  const { store, events, scheduler } = open(dir, systemClock, { created: 0 });
  for (let i = 0; i < 1000; i += 1) scheduler.create({ name: `nightly ${i}`, job: { kind: 'command', command: 'true', cwd: dir }, cron: `${i % 60} 3 * * *`, timeZone: 'UTC' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const before = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const used = process.cpuUsage(before);
  const elapsed = performance.now() - t0;
  scheduler.stop();
  events.close();
  store.close();
  return { schedules: 1000, cpuPercent: Math.round(((used.user + used.system) / 1000 / elapsed) * 10_000) / 100 };
}

export async function schedulesBench(): Promise<{ baseline: SchedulerFigures; thousand: SchedulerFigures; idle: { schedules: number; cpuPercent: number } }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wheelhouse-bench-schedules-'));
  try {
    const baseline = await measure(1, root);
    const thousand = await measure(1000, root);
    const idle = await idleCpu(root, 3000);
    return { baseline, thousand, idle };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  schedulesBench().then((figures) => console.log(JSON.stringify({ loadAverage: os.loadavg()[0], ...figures }, null, 2)));
}
