import { z } from 'zod';
import { defineMethod, defineNotification, oneAtATime } from '../define.js';
import { cronProblem, MIN_INTERVAL_MS, timeZoneProblem } from '../schedule-checks.js';
import { JobCreateParams, ScheduleNotify } from './job.js';

/**
 * Schedules: a job template run on a clock (cron, interval, or once). Each run
 * is a normal job with `job.scheduleId`. Wheelhouse's own namespace.
 */

/** A new run while the last one is still going: skip it, queue it behind, or run both. */
export const ScheduleOverlap = z.enum(['skip', 'queue', 'allow']);
export type ScheduleOverlap = z.infer<typeof ScheduleOverlap>;

/** Slots that passed while Wheelhouse was not running (or the computer slept): run the newest once, skip them, or run them all (up to `missedLimit`). */
export const ScheduleMissed = z.enum(['runOnce', 'skip', 'runAll']);
export type ScheduleMissed = z.infer<typeof ScheduleMissed>;


/** How one slot of the history went. */
export const ScheduleRunOutcome = z.enum(['queued', 'running', 'paused', 'completed', 'failed', 'cancelled', 'missed', 'skipped', 'refused', 'deleted']);
export type ScheduleRunOutcome = z.infer<typeof ScheduleRunOutcome>;

/** What started a slot: the clock, Run now, or the missed-run policy at the next start. */
export const ScheduleTrigger = z.enum(['clock', 'runNow', 'missed']);
export type ScheduleTrigger = z.infer<typeof ScheduleTrigger>;

/** Slots a schedule keeps in its history (the strip shows them). */
export const SCHEDULE_HISTORY_LENGTH = 30;
/** Default and largest `missedLimit`. */
export const SCHEDULE_MISSED_LIMIT_DEFAULT = 5;
export const SCHEDULE_MISSED_LIMIT_MAX = 100;

export const ScheduleRun = z.object({
  /** The slot (ms epoch): when it was due, or when Run now was pressed. */
  slotAt: z.number(),
  trigger: ScheduleTrigger,
  /** The job of this slot; null when none ran (missed, skipped, refused). */
  jobId: z.string().nullable(),
  outcome: ScheduleRunOutcome,
  /** Why, in words: "missed (Wheelhouse was not running)", "skipped: the run before was still going". */
  detail: z.string().nullable(),
});
export type ScheduleRun = z.infer<typeof ScheduleRun>;

export const Schedule = z.object({
  id: z.string(),
  name: z.string(),
  /** What each run creates: exactly what job/create takes. */
  job: JobCreateParams,
  cron: z.string().nullable(),
  intervalMs: z.number().int().nullable(),
  /** A one-off's moment (ms epoch). */
  at: z.number().nullable(),
  /** The IANA zone cron times are read in (default the machine's). */
  timeZone: z.string(),
  overlap: ScheduleOverlap,
  missed: ScheduleMissed,
  missedLimit: z.number().int(),
  notify: ScheduleNotify,
  paused: z.boolean(),
  /** The next slot (ms epoch); null while paused or when nothing is left (a one-off that ran). */
  nextRunAt: z.number().nullable(),
  /** The newest slot that was due (ran, skipped or missed). */
  lastRunAt: z.number().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** The newest SCHEDULE_HISTORY_LENGTH slots, oldest first. */
  history: z.array(ScheduleRun),
});
export type Schedule = z.infer<typeof Schedule>;

const ScheduleId = z.string().min(1).max(200);
const ScheduleRequest = z.strictObject({ scheduleId: ScheduleId });
const Name = z.string().trim().min(1, 'name must not be blank').max(200);
/** ms epoch, or an ISO 8601 date-time with its offset. */
const At = z.union([z.number().int().min(0), z.iso.datetime({ offset: true }).transform((text) => Date.parse(text))]);

const timingFields = {
  cron: z.string().max(200).optional(),
  intervalMs: z.number().int().min(MIN_INTERVAL_MS, `intervalMs must be at least ${MIN_INTERVAL_MS} (one second)`).max(366 * 24 * 3600 * 1000).optional(),
  at: At.optional(),
  timeZone: z.string().min(1).max(100).optional(),
};

const policyFields = {
  overlap: ScheduleOverlap.optional(),
  missed: ScheduleMissed.optional(),
  /** With `missed: "runAll"`: the most missed slots run at the next start (the newest ones). */
  missedLimit: z.number().int().min(1).max(SCHEDULE_MISSED_LIMIT_MAX).optional(),
  notify: ScheduleNotify.optional(),
};

type TimingInput = { cron?: string | undefined; intervalMs?: number | undefined; at?: number | undefined; timeZone?: string | undefined };

/** Exactly one (create) or at most one (update) of cron | intervalMs | at; cron and time zone checked by the library that runs them. */
function checkTiming(value: TimingInput, ctx: z.RefinementCtx, required: boolean): void {
  const given = (['cron', 'intervalMs', 'at'] as const).filter((key) => value[key] !== undefined);
  if (given.length > 1) {
    ctx.addIssue({ code: 'custom', path: [given[1]!], message: `give one of cron, intervalMs or at, not ${given.join(' and ')}` });
  } else if (given.length === 0 && required) {
    ctx.addIssue({ code: 'custom', path: ['cron'], message: 'say when it runs: cron, intervalMs or at' });
  }
  if (value.cron !== undefined) {
    const problem = cronProblem(value.cron);
    if (problem) ctx.addIssue({ code: 'custom', path: ['cron'], message: problem, params: { reason: 'badCron' } });
  }
  if (value.timeZone !== undefined) {
    const problem = timeZoneProblem(value.timeZone);
    if (problem) ctx.addIssue({ code: 'custom', path: ['timeZone'], message: problem, params: { reason: 'badTimeZone' } });
  }
}

export const ScheduleCreateParams = z
  .strictObject({ name: Name, job: JobCreateParams, ...timingFields, ...policyFields, paused: z.boolean().optional() })
  .superRefine((value, ctx) => checkTiming(value, ctx, true));
export type ScheduleCreateParams = z.output<typeof ScheduleCreateParams>;

export const ScheduleUpdateParams = z
  .strictObject({ scheduleId: ScheduleId, name: Name.optional(), job: JobCreateParams.optional(), ...timingFields, ...policyFields })
  .superRefine((value, ctx) => checkTiming(value, ctx, false));
export type ScheduleUpdateParams = z.output<typeof ScheduleUpdateParams>;

const ScheduleResult = z.object({ schedule: Schedule });

/**
 * Every schedule method, reads too, runs one at a time (`schedules`): runNow waits for its job's
 * commit, and a read or change arriving meanwhile sees the schedule with that run claimed, never half.
 */
const SCHEDULES = oneAtATime('schedules');

export const scheduleMethods = {
  'schedule/create': defineMethod(ScheduleCreateParams, ScheduleResult, 'Create a schedule that runs a job on a clock (cron, interval, or once).', SCHEDULES),
  'schedule/read': defineMethod(ScheduleRequest, ScheduleResult, 'One schedule with its next run and the history of its last 30 slots.', SCHEDULES),
  'schedule/list': defineMethod(z.strictObject({}), z.object({ data: z.array(Schedule) }), 'Every schedule, by name.', SCHEDULES),
  'schedule/update': defineMethod(ScheduleUpdateParams, ScheduleResult, 'Change a schedule; a new timing takes effect from now.', SCHEDULES),
  'schedule/pause': defineMethod(ScheduleRequest, ScheduleResult, 'Stop starting runs (a run in progress goes on); slots while paused are not run later.', SCHEDULES),
  'schedule/resume': defineMethod(ScheduleRequest, ScheduleResult, 'Start runs again from the next slot after now.', SCHEDULES),
  'schedule/delete': defineMethod(ScheduleRequest, z.object({ deleted: z.literal(true) }), 'Delete a schedule; its jobs stay (a run in progress goes on).', SCHEDULES),
  'schedule/runNow': defineMethod(
    ScheduleRequest,
    z.object({ schedule: Schedule, jobId: z.string().nullable() }),
    'Run the schedule’s job now (the overlap policy applies); the slot does not move the next run.',
    SCHEDULES,
  ),
} as const;

export const scheduleNotifications = {
  'schedule/updated': defineNotification(ScheduleResult, 'A schedule changed: settings, pause, its next run (nextRunAt) or its history; already durable.'),
  'schedule/deleted': defineNotification(z.object({ scheduleId: z.string() }), 'A schedule was deleted; clients drop its row.'),
} as const;
