import {
  JobCreateParams,
  SCHEDULE_HISTORY_LENGTH,
  type Job,
  type Schedule,
  type ScheduleRun,
  type ScheduleRunOutcome,
} from '../../../shared/protocol/index.js';
import type { ScheduleTiming } from '../../../shared/schedule-timing.js';
import type { ScheduleRow, ScheduleRunWithJob } from '../../store/schedule-store.js';

/** When a stored schedule runs. */
export function timingOf(row: ScheduleRow): ScheduleTiming {
  if (row.cron !== null) return { kind: 'cron', cron: row.cron, timeZone: row.timeZone };
  if (row.intervalMs !== null) return { kind: 'interval', intervalMs: row.intervalMs, anchorMs: row.anchorMs };
  return { kind: 'once', at: row.atMs ?? row.anchorMs };
}

/** The job template as job/create takes it (parsed again: it was checked when stored). */
export function jobTemplateOf(row: ScheduleRow): JobCreateParams {
  return JobCreateParams.parse(JSON.parse(row.job));
}

/** How one slot went, as the history strip shows it. */
export function runOf(run: ScheduleRunWithJob): ScheduleRun {
  let outcome: ScheduleRunOutcome;
  let detail = run.detail;
  switch (run.outcome) {
    case 'started':
      outcome = run.jobStatus ?? 'deleted';
      break;
    case null:
      outcome = 'queued';
      break;
    case 'waiting':
      outcome = 'queued';
      detail ??= 'waits for the run before it to end';
      break;
    default:
      outcome = run.outcome;
  }
  return { slotAt: run.slotAtMs, trigger: run.trigger, jobId: run.jobId, outcome, detail };
}

export function scheduleOf(row: ScheduleRow, history: readonly ScheduleRunWithJob[]): Schedule {
  return {
    id: row.id,
    name: row.name,
    job: jobTemplateOf(row),
    cron: row.cron,
    intervalMs: row.intervalMs,
    at: row.atMs,
    timeZone: row.timeZone,
    overlap: row.overlap,
    missed: row.missed,
    missedLimit: row.missedLimit,
    notify: row.notify,
    paused: row.paused === 1,
    nextRunAt: row.paused === 1 ? null : row.nextRunAtMs,
    lastRunAt: history.length > 0 ? Math.max(...history.map((run) => run.slotAtMs)) : null,
    createdAt: row.createdAtMs,
    updatedAt: row.updatedAtMs,
    history: history.slice(-SCHEDULE_HISTORY_LENGTH).map(runOf),
  };
}

/** A job that will not run again by itself: its slot is over. */
export function jobIsOver(job: Pick<Job, 'status' | 'nextRetryAt'>): boolean {
  return job.status === 'completed' || job.status === 'cancelled' || (job.status === 'failed' && job.nextRetryAt === null);
}
