import type { JobStatus, ScheduleMissed, ScheduleNotify, ScheduleOverlap, ScheduleTrigger } from '../../shared/protocol/index.js';
import type { Db } from './database.js';

/** One stored schedule. `job` is the job/create params as JSON. */
export interface ScheduleRow {
  readonly id: string;
  readonly name: string;
  readonly job: string;
  readonly cron: string | null;
  readonly intervalMs: number | null;
  readonly atMs: number | null;
  readonly timeZone: string;
  readonly overlap: ScheduleOverlap;
  readonly missed: ScheduleMissed;
  readonly missedLimit: number;
  readonly notify: ScheduleNotify;
  readonly paused: number;
  /** An interval's slots are anchor + k × interval. */
  readonly anchorMs: number;
  readonly nextRunAtMs: number | null;
  /** Slots up to here are settled (ran, skipped, missed, or passed while paused or before a new timing): the next is after it. */
  readonly lastSlotAtMs: number | null;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

/**
 * A slot's own state: null = claimed (its job is about to be created under `jobId`), `waiting` =
 * claimed behind a run still going (overlap "queue"), `started` = its job was created; or how it
 * ended without a job: `missed`, `skipped`, `refused`.
 */
export type SlotState = null | 'waiting' | 'started' | 'missed' | 'skipped' | 'refused';

export interface ScheduleRunRow {
  readonly scheduleId: string;
  readonly slotAtMs: number;
  readonly trigger: ScheduleTrigger;
  readonly jobId: string | null;
  readonly outcome: SlotState;
  readonly detail: string | null;
  readonly claimedAtMs: number;
}

/** A slot with the status of its job, if the job still exists. */
export interface ScheduleRunWithJob extends ScheduleRunRow {
  readonly jobStatus: JobStatus | null;
}

const COLUMNS = `id, name, job, cron, interval_ms AS intervalMs, at_ms AS atMs, time_zone AS timeZone, overlap, missed,
  missed_limit AS missedLimit, notify, paused, anchor_ms AS anchorMs, next_run_at_ms AS nextRunAtMs,
  last_slot_at_ms AS lastSlotAtMs, created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs`;
const RUN_COLUMNS = `r.schedule_id AS scheduleId, r.slot_at_ms AS slotAtMs, r.trigger, r.job_id AS jobId, r.outcome, r.detail,
  r.claimed_at_ms AS claimedAtMs`;
/** Slots kept per schedule (the UI shows 30; the rest is for a look further back). */
const KEPT_RUNS = 200;

/** Schedules and their slots. A claim lands in the same transaction as the schedule moving on. */
export class ScheduleStore {
  private readonly upsertSchedule;
  private readonly insertRun;
  private readonly setOutcome;
  private readonly trimRuns;

  constructor(private readonly db: Db) {
    this.upsertSchedule = db.prepare(`
      INSERT INTO schedules (id, name, job, cron, interval_ms, at_ms, time_zone, overlap, missed, missed_limit, notify, paused,
        anchor_ms, next_run_at_ms, last_slot_at_ms, created_at_ms, updated_at_ms)
      VALUES (@id, @name, @job, @cron, @intervalMs, @atMs, @timeZone, @overlap, @missed, @missedLimit, @notify, @paused,
        @anchorMs, @nextRunAtMs, @lastSlotAtMs, @createdAtMs, @updatedAtMs)
      ON CONFLICT (id) DO UPDATE SET name = excluded.name, job = excluded.job, cron = excluded.cron, interval_ms = excluded.interval_ms,
        at_ms = excluded.at_ms, time_zone = excluded.time_zone, overlap = excluded.overlap, missed = excluded.missed,
        missed_limit = excluded.missed_limit, notify = excluded.notify, paused = excluded.paused, anchor_ms = excluded.anchor_ms,
        next_run_at_ms = excluded.next_run_at_ms, last_slot_at_ms = excluded.last_slot_at_ms, updated_at_ms = excluded.updated_at_ms`);
    // A slot claimed twice is a primary-key violation: the whole transaction fails and nothing starts.
    this.insertRun = db.prepare(`
      INSERT INTO schedule_runs (schedule_id, slot_at_ms, trigger, job_id, outcome, detail, claimed_at_ms)
      VALUES (@scheduleId, @slotAtMs, @trigger, @jobId, @outcome, @detail, @claimedAtMs)`);
    this.setOutcome = db.prepare(`UPDATE schedule_runs SET outcome = ?, detail = ? WHERE schedule_id = ? AND slot_at_ms = ?`);
    this.trimRuns = db.prepare(`
      DELETE FROM schedule_runs WHERE schedule_id = ? AND slot_at_ms < (
        SELECT slot_at_ms FROM schedule_runs WHERE schedule_id = ? ORDER BY slot_at_ms DESC LIMIT 1 OFFSET ${KEPT_RUNS - 1})
      AND outcome IS NOT NULL AND outcome != 'waiting'`);
  }

  /** Writes the schedule and inserts its new slots, in one transaction (all land, or none). */
  save(row: ScheduleRow, runs: readonly ScheduleRunRow[] = []): void {
    this.db.transaction(() => {
      this.upsertSchedule.run(row);
      for (const run of runs) this.insertRun.run(run);
      if (runs.length > 0) this.trimRuns.run(row.id, row.id);
    })();
  }

  get(id: string): ScheduleRow | undefined {
    return this.db.prepare(`SELECT ${COLUMNS} FROM schedules WHERE id = ?`).get(id) as ScheduleRow | undefined;
  }

  all(): ScheduleRow[] {
    return this.db.prepare(`SELECT ${COLUMNS} FROM schedules ORDER BY name COLLATE NOCASE, id`).all() as ScheduleRow[];
  }

  delete(id: string): void {
    this.db.prepare(`DELETE FROM schedules WHERE id = ?`).run(id);
  }

  markSlot(scheduleId: string, slotAtMs: number, outcome: SlotState, detail: string | null): void {
    this.setOutcome.run(outcome, detail, scheduleId, slotAtMs);
  }

  /** The newest `limit` slots of a schedule with their jobs' status, oldest first. */
  history(scheduleId: string, limit: number): ScheduleRunWithJob[] {
    const rows = this.db
      .prepare(
        `SELECT ${RUN_COLUMNS}, j.status AS jobStatus FROM schedule_runs r LEFT JOIN jobs j ON j.id = r.job_id
         WHERE r.schedule_id = ? ORDER BY r.slot_at_ms DESC LIMIT ?`,
      )
      .all(scheduleId, limit) as ScheduleRunWithJob[];
    return rows.reverse();
  }

  /** Slots claimed but not yet started (null) or waiting behind a run (overlap "queue"), oldest first. */
  pendingSlots(): ScheduleRunWithJob[] {
    return this.db
      .prepare(
        `SELECT ${RUN_COLUMNS}, j.status AS jobStatus FROM schedule_runs r LEFT JOIN jobs j ON j.id = r.job_id
         WHERE r.outcome IS NULL OR r.outcome = 'waiting' ORDER BY r.slot_at_ms`,
      )
      .all() as ScheduleRunWithJob[];
  }

  /** Jobs of a schedule that are still going: queued, running, paused, or failed with a retry to come. */
  activeJobIds(scheduleId: string): string[] {
    const rows = this.db
      .prepare(
        `SELECT id FROM jobs WHERE schedule_id = ? AND (status IN ('queued', 'running', 'paused') OR (status = 'failed' AND next_retry_at_ms IS NOT NULL))`,
      )
      .all(scheduleId) as { id: string }[];
    return rows.map((row) => row.id);
  }
}
