import {
  RpcError,
  SCHEDULE_HISTORY_LENGTH,
  SCHEDULE_MISSED_LIMIT_DEFAULT,
  type AnyNotification,
  type JobCreateParams,
  type ResultOf,
  type Schedule,
  type ScheduleCreateParams,
  type ScheduleTrigger,
  type ScheduleUpdateParams,
} from '../../../shared/protocol/index.js';
import { machineTimeZone, nextRunTime, slotsBetween } from '../../../shared/schedule-timing.js';
import type { ScheduleRow, ScheduleRunRow } from '../../store/schedule-store.js';
import type { StateStore } from '../../store/state-store.js';
import type { EventLog } from '../event-log.js';
import type { JobClock } from '../jobs/job-clock.js';
import type { ScheduledOrigin } from '../jobs/job-engine.js';
import { PERSON, type JobRequester } from '../jobs/job-approvals.js';
import { jobIsOver, scheduleOf, timingOf } from './schedule-wire.js';

/** What the scheduler starts its runs with: the job engine's create. */
export interface ScheduledJobs {
  create(params: JobCreateParams, requester: JobRequester, origin: ScheduledOrigin): Promise<unknown>;
}

export interface SchedulerOptions {
  readonly store: StateStore;
  readonly events: EventLog;
  readonly jobs: ScheduledJobs;
  readonly clock: JobClock;
  readonly newId: () => string;
  /** The zone of a schedule that names none (default: this computer's). */
  readonly machineTimeZone?: () => string;
  /** A slot this late (ms) when its timer fires counts as missed: the computer was asleep. Default one minute. */
  readonly lateAfterMs?: number;
  /** The longest a timer waits before the scheduler looks again (a clock change or sleep is noticed by then). */
  readonly maxTimerMs?: number;
  readonly onError?: (message: string, error: unknown) => void;
}

const MISSED_NOT_RUNNING = 'missed (Wheelhouse was not running)';
const MISSED_ASLEEP = 'missed (the computer was asleep or Wheelhouse was busy)';
const SKIPPED_OVERLAP = 'skipped: the run before was still going';
const SKIPPED_ONE_WAITS = 'skipped: a run already waits for the one before';

const notFound = (scheduleId: string) => RpcError.because('schedule.notFound', `schedule not found: ${scheduleId}`, { scheduleId });

/**
 * Runs job templates on a clock. One timer for the earliest slot of all
 * schedules. Each slot is claimed durably — a schedule_runs row naming the job
 * id it will create, written in the transaction that moves the schedule on —
 * before its job is created; at the next start a claim whose job is missing is
 * started under that id, one whose job exists never again.
 */
export class Scheduler {
  private readonly rows = new Map<string, ScheduleRow>();
  private readonly clock: JobClock;
  private timer: unknown = null;
  private timerAt: number | null = null;
  private stopped = false;
  /** Claimed slots whose job is being created (job id → schedule id). */
  private readonly starting = new Map<string, string>();
  /** Last status told per scheduled job, so a schedule is announced when its history changes, not on every progress tick. */
  private readonly jobStatus = new Map<string, string>();
  private readonly unsubscribe: () => void;

  constructor(private readonly options: SchedulerOptions) {
    this.clock = options.clock;
    this.unsubscribe = options.events.subscribe((notification) => this.onNotification(notification));
  }

  private get store() {
    return this.options.store.schedules;
  }

  /** At start: finish claims a crash interrupted, apply each schedule's missed-run policy, arm the timer. */
  recover(): void {
    for (const row of this.store.all()) this.rows.set(row.id, row);
    const waitingSchedules = new Set<string>();
    for (const slot of this.store.pendingSlots()) {
      if (slot.outcome === 'waiting') waitingSchedules.add(slot.scheduleId);
      else if (slot.jobStatus !== null) this.store.markSlot(slot.scheduleId, slot.slotAtMs, 'started', slot.detail);
      // Claimed, its job never made: it never started, so it starts now, once, under the claimed id.
      else void this.startSlot(slot);
    }
    const now = this.clock.now();
    // Every slot up to now passed while Wheelhouse was not running: none of them is on time.
    for (const row of this.rows.values()) if (row.paused === 0) this.advance(row, now, MISSED_NOT_RUNNING, null);
    for (const scheduleId of waitingSchedules) this.startWaiting(scheduleId);
    this.arm();
  }

  list(): ResultOf<'schedule/list'> {
    return { data: [...this.rows.values()].sort(byName).map((row) => this.wire(row)) };
  }

  read(scheduleId: string): ResultOf<'schedule/read'> {
    return { schedule: this.wire(this.lookup(scheduleId)) };
  }

  create(params: ScheduleCreateParams): ResultOf<'schedule/create'> {
    const now = this.clock.now();
    if (params.at !== undefined && params.at <= now) throw atInPast(params.at, now);
    const row: ScheduleRow = {
      id: `schedule-${this.options.newId()}`,
      name: params.name,
      job: JSON.stringify(params.job),
      cron: params.cron?.trim() ?? null,
      intervalMs: params.intervalMs ?? null,
      atMs: params.at ?? null,
      timeZone: params.timeZone ?? (this.options.machineTimeZone ?? machineTimeZone)(),
      overlap: params.overlap ?? 'skip',
      missed: params.missed ?? 'runOnce',
      missedLimit: params.missedLimit ?? SCHEDULE_MISSED_LIMIT_DEFAULT,
      notify: params.notify ?? 'failure',
      paused: params.paused ? 1 : 0,
      anchorMs: now,
      nextRunAtMs: null,
      lastSlotAtMs: null,
      createdAtMs: now,
      updatedAtMs: now,
    };
    return { schedule: this.save({ ...row, nextRunAtMs: nextRunTime(timingOf(row), now) }) };
  }

  update(params: ScheduleUpdateParams): ResultOf<'schedule/update'> {
    const before = this.lookup(params.scheduleId);
    const now = this.clock.now();
    if (params.at !== undefined && params.at <= now) throw atInPast(params.at, now);
    const retimed = params.cron !== undefined || params.intervalMs !== undefined || params.at !== undefined || params.timeZone !== undefined;
    const newKind = params.cron !== undefined || params.intervalMs !== undefined || params.at !== undefined;
    let row: ScheduleRow = {
      ...before,
      ...(params.name !== undefined ? { name: params.name } : {}),
      ...(params.job !== undefined ? { job: JSON.stringify(params.job) } : {}),
      ...(newKind ? { cron: params.cron?.trim() ?? null, intervalMs: params.intervalMs ?? null, atMs: params.at ?? null } : {}),
      ...(params.timeZone !== undefined ? { timeZone: params.timeZone } : {}),
      ...(params.overlap !== undefined ? { overlap: params.overlap } : {}),
      ...(params.missed !== undefined ? { missed: params.missed } : {}),
      ...(params.missedLimit !== undefined ? { missedLimit: params.missedLimit } : {}),
      ...(params.notify !== undefined ? { notify: params.notify } : {}),
      updatedAtMs: now,
    };
    // A new timing counts from now: nothing between the last slot and now is owed.
    if (retimed) row = { ...row, anchorMs: now, lastSlotAtMs: now, nextRunAtMs: nextRunTime(timingOf(row), now) };
    return { schedule: this.save(row) };
  }

  pause(scheduleId: string): ResultOf<'schedule/pause'> {
    const row = this.lookup(scheduleId);
    if (row.paused === 1) return { schedule: this.wire(row) };
    return { schedule: this.save({ ...row, paused: 1, updatedAtMs: this.clock.now() }) };
  }

  /** Slots that passed while paused are not owed: the schedule goes on from now. */
  resume(scheduleId: string): ResultOf<'schedule/resume'> {
    const row = this.lookup(scheduleId);
    if (row.paused === 0) return { schedule: this.wire(row) };
    const now = this.clock.now();
    const next = nextRunTime(timingOf(row), now);
    return { schedule: this.save({ ...row, paused: 0, lastSlotAtMs: now, nextRunAtMs: next, updatedAtMs: now }) };
  }

  /** Its jobs stay (a run in progress goes on, linked to a schedule that is gone); slots waiting behind it go. */
  delete(scheduleId: string): ResultOf<'schedule/delete'> {
    this.lookup(scheduleId);
    this.store.delete(scheduleId);
    this.rows.delete(scheduleId);
    this.options.events.publish('schedule/deleted', { scheduleId }, { ephemeral: true });
    this.arm();
    return { deleted: true };
  }

  /** One run now, under the overlap policy; the schedule's next slot stays where it was. */
  async runNow(scheduleId: string): Promise<ResultOf<'schedule/runNow'>> {
    const row = this.lookup(scheduleId);
    let slotAt = this.clock.now();
    const taken = new Set(this.store.history(scheduleId, 5).map((run) => run.slotAtMs));
    while (taken.has(slotAt)) slotAt += 1;
    const slot = this.decide(row, slotAt, 'runNow', this.activeJobs(row.id));
    this.store.save({ ...row, updatedAtMs: this.clock.now() }, [slot]);
    if (slot.outcome === null) await this.startSlot(slot);
    else this.announce(scheduleId);
    return { schedule: this.wire(this.lookup(scheduleId)), jobId: slot.outcome === null ? slot.jobId : null };
  }

  /** Quit or crash: no timer stays armed, nothing new starts. */
  stop(): void {
    this.stopped = true;
    this.disarm();
    this.unsubscribe();
  }

  /** The earliest slot of all armed schedules (for tests and the benchmark). */
  nextDueAt(): number | null {
    let earliest: number | null = null;
    for (const row of this.rows.values()) {
      if (row.paused === 1 || row.nextRunAtMs === null) continue;
      if (earliest === null || row.nextRunAtMs < earliest) earliest = row.nextRunAtMs;
    }
    return earliest;
  }

  private lookup(scheduleId: string): ScheduleRow {
    const row = this.rows.get(scheduleId);
    if (!row) throw notFound(scheduleId);
    return row;
  }

  private wire(row: ScheduleRow): Schedule {
    return scheduleOf(row, this.store.history(row.id, SCHEDULE_HISTORY_LENGTH));
  }

  private save(row: ScheduleRow, runs: readonly ScheduleRunRow[] = []): Schedule {
    this.store.save(row, runs);
    this.rows.set(row.id, row);
    const schedule = this.wire(row);
    this.options.events.publish('schedule/updated', { schedule }, { ephemeral: true });
    this.arm();
    return schedule;
  }

  private announce(scheduleId: string): void {
    const row = this.rows.get(scheduleId);
    if (row) this.options.events.publish('schedule/updated', { schedule: this.wire(row) }, { ephemeral: true });
  }

  /**
   * The slots due by `now` since the last one: claimed and started when on time; when some are late
   * (Wheelhouse was not running, or the computer slept) the missed-run policy picks which run.
   * Only the newest slot can be on time (within `onTimeWithinMs` of now): the timer fires for each.
   */
  private advance(row: ScheduleRow, now: number, missedWhy: string, onTimeWithinMs: number | null): void {
    const timing = timingOf(row);
    const from = row.lastSlotAtMs ?? row.anchorMs;
    const cap = Math.max(row.missedLimit, SCHEDULE_HISTORY_LENGTH);
    const { slots, leftOut } = slotsBetween(timing, from, now, cap);
    const next = nextRunTime(timing, now);
    if (slots.length === 0) {
      if (next !== row.nextRunAtMs) this.save({ ...row, nextRunAtMs: next, updatedAtMs: now });
      return;
    }
    const newest = slots[slots.length - 1]!;
    const onTime = onTimeWithinMs !== null && now - newest <= onTimeWithinMs ? newest : null;
    const late = slots.filter((slot) => slot !== onTime);
    const toRun = new Set<number>(onTime === null ? [] : [onTime]);
    if (late.length > 0) {
      if (row.missed === 'runOnce' && toRun.size === 0) toRun.add(late[late.length - 1]!);
      if (row.missed === 'runAll') for (const slot of late.slice(-row.missedLimit)) toRun.add(slot);
    }
    const active = this.activeJobs(row.id);
    const runs: ScheduleRunRow[] = [];
    for (const slot of slots) {
      if (!toRun.has(slot)) {
        const earlier = runs.length === 0 && leftOut > 0 ? `, and ${leftOut} earlier` : '';
        runs.push(this.slotRow(row.id, slot, 'missed', null, 'missed', `${missedWhy}${earlier}`));
        continue;
      }
      const trigger: ScheduleTrigger = slot === onTime ? 'clock' : 'missed';
      // Missed slots run all: one after another, not side by side (unless runs may overlap).
      const decided = this.decide(row, slot, trigger, active, runs, trigger === 'missed' && row.overlap !== 'allow');
      runs.push(decided);
      if (decided.outcome === null && decided.jobId) active.push(decided.jobId);
    }
    this.save({ ...row, lastSlotAtMs: slots[slots.length - 1]!, nextRunAtMs: next, updatedAtMs: now }, runs);
    for (const run of runs) if (run.outcome === null) void this.startSlot(run);
  }

  /** The overlap policy: start the slot, let it wait behind the run still going, or skip it. */
  private decide(row: ScheduleRow, slotAt: number, trigger: ScheduleTrigger, active: readonly string[], claimedNow: readonly ScheduleRunRow[] = [], queueAll = false): ScheduleRunRow {
    const jobId = `job-${this.options.newId()}`;
    if (active.length === 0 || row.overlap === 'allow') return this.slotRow(row.id, slotAt, trigger, jobId, null, null);
    if (row.overlap === 'skip' && !queueAll) return this.slotRow(row.id, slotAt, trigger, null, 'skipped', SKIPPED_OVERLAP);
    const waiting = claimedNow.some((run) => run.outcome === 'waiting') || this.store.history(row.id, SCHEDULE_HISTORY_LENGTH).some((run) => run.outcome === 'waiting');
    if (waiting && !queueAll) return this.slotRow(row.id, slotAt, trigger, null, 'skipped', SKIPPED_ONE_WAITS);
    return this.slotRow(row.id, slotAt, trigger, jobId, 'waiting', null);
  }

  private slotRow(scheduleId: string, slotAtMs: number, trigger: ScheduleTrigger, jobId: string | null, outcome: ScheduleRunRow['outcome'], detail: string | null): ScheduleRunRow {
    return { scheduleId, slotAtMs, trigger, jobId, outcome, detail, claimedAtMs: this.clock.now() };
  }

  /** Jobs of the schedule still going, and those being created right now. */
  private activeJobs(scheduleId: string): string[] {
    const active = this.store.activeJobIds(scheduleId);
    for (const [jobId, owner] of this.starting) if (owner === scheduleId && !active.includes(jobId)) active.push(jobId);
    return active;
  }

  /** Creates the claimed slot's job under the claimed id; the claim is already durable. */
  private async startSlot(slot: ScheduleRunRow): Promise<void> {
    const row = this.rows.get(slot.scheduleId);
    const jobId = slot.jobId;
    if (!row || !jobId || this.starting.has(jobId) || this.stopped) return;
    this.starting.set(jobId, row.id);
    try {
      const template = JSON.parse(row.job) as JobCreateParams;
      await this.options.jobs.create(template, PERSON, { jobId, scheduleId: row.id, notify: row.notify });
      if (!this.stopped) this.store.markSlot(row.id, slot.slotAtMs, 'started', null);
    } catch (error) {
      if (this.stopped) return;
      const exists = error instanceof RpcError && error.reason === 'schedule.slotStarted';
      this.store.markSlot(row.id, slot.slotAtMs, exists ? 'started' : 'refused', exists ? null : `not run: ${(error as Error).message}`);
    } finally {
      this.starting.delete(jobId);
    }
    if (!this.stopped) this.announce(row.id);
  }

  /** The oldest slot waiting behind a run, once no run of its schedule is going. */
  private startWaiting(scheduleId: string): void {
    if (this.stopped || this.activeJobs(scheduleId).length > 0) return;
    const waiting = this.store.pendingSlots().find((slot) => slot.scheduleId === scheduleId && slot.outcome === 'waiting');
    if (!waiting) return;
    this.store.markSlot(scheduleId, waiting.slotAtMs, null, null);
    void this.startSlot({ ...waiting, outcome: null });
  }

  private onNotification(notification: AnyNotification): void {
    if (this.stopped || notification.method !== 'job/updated') return;
    const { job } = notification.params;
    if (job.scheduleId === null || !this.rows.has(job.scheduleId)) return;
    const status = jobIsOver(job) ? `over:${job.status}` : job.status;
    if (this.jobStatus.get(job.id) === status) return;
    this.jobStatus.set(job.id, status);
    if (jobIsOver(job)) {
      this.jobStatus.delete(job.id);
      this.startWaiting(job.scheduleId);
    }
    this.announce(job.scheduleId);
  }

  /** One timer, for the earliest slot; capped so a clock change or a sleep is noticed within a minute. */
  private arm(): void {
    if (this.stopped) return;
    const due = this.nextDueAt();
    if (due === this.timerAt && this.timer !== null) return;
    this.disarm();
    if (due === null) return;
    const delay = Math.min(Math.max(0, due - this.clock.now()), this.options.maxTimerMs ?? 60_000);
    this.timerAt = due;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.timerAt = null;
      this.fire();
    }, delay);
  }

  private disarm(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = null;
  }

  private fire(): void {
    if (this.stopped) return;
    const now = this.clock.now();
    for (const row of [...this.rows.values()]) {
      if (row.paused === 1 || row.nextRunAtMs === null || row.nextRunAtMs > now) continue;
      try {
        this.advance(row, now, MISSED_ASLEEP, this.options.lateAfterMs ?? 60_000);
      } catch (error) {
        this.options.onError?.(`schedule ${row.id}`, error);
      }
    }
    this.arm();
  }
}

function byName(a: ScheduleRow, b: ScheduleRow): number {
  return a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.id.localeCompare(b.id);
}

function atInPast(at: number, now: number): RpcError {
  return RpcError.because('request.invalidParams', `invalid params: at: ${new Date(at).toISOString()} has passed (it is ${new Date(now).toISOString()})`, {
    issues: [{ path: ['at'], message: 'the moment has passed' }],
  });
}

