import type { JobKind, JobStatus, ScheduleNotify } from '../../shared/protocol/index.js';
import type { Db } from './database.js';

/** One stored job: the seed's columns plus what listing and the scheduler need without parsing `detail`. */
export interface JobRow {
  readonly id: string;
  readonly kind: JobKind;
  readonly name: string;
  readonly status: JobStatus;
  readonly progress: number | null;
  /** The human detail (also inside `detail`). */
  readonly message: string | null;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly nextRetryAtMs: number | null;
  readonly exitCode: number | null;
  readonly threadId: string | null;
  /** The schedule that started it (fixed at creation). */
  readonly scheduleId: string | null;
  readonly scheduleNotify: ScheduleNotify | null;
  readonly command: string | null;
  readonly cwd: string;
  readonly runs: number;
  readonly activeMs: number;
  readonly etaMs: number | null;
  readonly queueOrder: number;
  /** `job/retry` presses that started a run (they use up no automatic retry). */
  readonly manualRetries: number;
  /** While it runs: when it would have started had it never paused (running time = now − this, ms epoch); null otherwise. */
  readonly activeSinceMs: number | null;
  /** What to run, as JSON (kind-specific). */
  readonly spec: string;
  /** Seed 000's persisted detail JSON (schema_version, status, retry, history); may be unreadable. */
  readonly detail: string | null;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

export interface JobRunRow {
  readonly jobId: string;
  readonly run: number;
  readonly logPath: string;
  readonly startedAtMs: number;
  readonly endedAtMs: number | null;
  readonly outcome: string | null;
  /**
   * A detached run's place, then its identity (JSON, see exec's DetachedRunHandle), written before
   * the run is announced; null for a run inside the app (a command the agent started, adopted).
   */
  readonly handle: string | null;
  /** Log bytes already sent to clients and progress parsing (a re-attach goes on from here). */
  readonly streamedBytes: number;
  /** A job array's tasks as last seen (JSON array of exec's DetachedTask); null for a single task. */
  readonly tasks?: string | null;
}

/** A change to a run while it runs. */
export interface JobRunUpdate {
  readonly jobId: string;
  readonly run: number;
  readonly handle?: string;
  readonly streamedBytes?: number;
  readonly tasks?: string;
}

/** How a run ended. */
export interface JobRunEnd {
  readonly jobId: string;
  readonly run: number;
  readonly endedAtMs: number;
  /** completed, failed, timed-out, cancelled, interrupted, lost */
  readonly outcome: string;
}

export interface JobListQuery {
  readonly statuses?: readonly JobStatus[];
  /** Lower-case text matched inside name or command. */
  readonly search?: string;
  readonly limit: number;
  readonly after?: { readonly updatedAtMs: number; readonly id: string };
}

const COLUMNS = `id, kind, name, status, progress, message, attempt, max_attempts AS maxAttempts,
  next_retry_at_ms AS nextRetryAtMs, exit_code AS exitCode, thread_id AS threadId, schedule_id AS scheduleId, schedule_notify AS scheduleNotify, command, cwd, runs,
  active_ms AS activeMs, eta_ms AS etaMs, queue_order AS queueOrder, manual_retries AS manualRetries,
  active_since_ms AS activeSinceMs, spec, detail, created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs`;

/** The jobs table and its runs. Writes come in batches from the job engine, one transaction each. */
export class JobStore {
  private readonly insert;
  private readonly update;
  private readonly byId;
  private readonly insertRun;
  private readonly setRunHandle;
  private readonly setRunStreamed;
  private readonly setRunTasks;
  private readonly endRun;

  constructor(private readonly db: Db) {
    this.insert = db.prepare(`
      INSERT INTO jobs (id, kind, name, status, progress, message, attempt, max_attempts, next_retry_at_ms, exit_code,
        thread_id, schedule_id, schedule_notify, command, cwd, runs, active_ms, eta_ms, queue_order, manual_retries, active_since_ms, spec, detail,
        created_at_ms, updated_at_ms)
      VALUES (@id, @kind, @name, @status, @progress, @message, @attempt, @maxAttempts, @nextRetryAtMs, @exitCode,
        @threadId, @scheduleId, @scheduleNotify, @command, @cwd, @runs, @activeMs, @etaMs, @queueOrder, @manualRetries, @activeSinceMs, @spec, @detail,
        @createdAtMs, @updatedAtMs)`);
    // What a transition can change (the spec: an agent job's carries its usage, a command job's loses its
    // pending approval); the rest is fixed at creation.
    // Positional parameters: binding 15 of them by name costs more than the UPDATE itself at 20,000 a second.
    this.update = db.prepare(`
      UPDATE jobs SET status = ?, progress = ?, message = ?, attempt = ?, max_attempts = ?, next_retry_at_ms = ?,
        exit_code = ?, runs = ?, active_ms = ?, eta_ms = ?, queue_order = ?, manual_retries = ?, active_since_ms = ?,
        spec = ?, detail = ?, updated_at_ms = ?
      WHERE id = ?`);
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`);
    // REPLACE: a run number whose start never happened (the app died first) is used again.
    this.insertRun = db.prepare(
      `INSERT OR REPLACE INTO job_runs (job_id, run, log_path, started_at_ms, ended_at_ms, outcome, handle, streamed_bytes)
         VALUES (?, ?, ?, ?, NULL, NULL, ?, 0)`,
    );
    this.setRunHandle = db.prepare(`UPDATE job_runs SET handle = ? WHERE job_id = ? AND run = ?`);
    this.setRunStreamed = db.prepare(`UPDATE job_runs SET streamed_bytes = ? WHERE job_id = ? AND run = ?`);
    this.setRunTasks = db.prepare(`UPDATE job_runs SET tasks = ? WHERE job_id = ? AND run = ?`);
    this.endRun = db.prepare(`UPDATE job_runs SET ended_at_ms = ?, outcome = ? WHERE job_id = ? AND run = ?`);
  }

  /** Writes every row in one transaction (all land, or none). */
  upsertMany(
    rows: readonly JobRow[],
    runStarts: readonly JobRunRow[] = [],
    runEnds: readonly JobRunEnd[] = [],
    runUpdates: readonly JobRunUpdate[] = [],
  ): void {
    this.db.transaction(() => {
      for (const row of rows) {
        const changed = this.update.run(
          row.status, row.progress, row.message, row.attempt, row.maxAttempts, row.nextRetryAtMs, row.exitCode,
          row.runs, row.activeMs, row.etaMs, row.queueOrder, row.manualRetries, row.activeSinceMs, row.spec, row.detail,
          row.updatedAtMs, row.id,
        ).changes;
        if (changed === 0) this.insert.run(row);
      }
      for (const run of runStarts) this.insertRun.run(run.jobId, run.run, run.logPath, run.startedAtMs, run.handle);
      for (const run of runUpdates) {
        if (run.handle !== undefined) this.setRunHandle.run(run.handle, run.jobId, run.run);
        if (run.streamedBytes !== undefined) this.setRunStreamed.run(run.streamedBytes, run.jobId, run.run);
        if (run.tasks !== undefined) this.setRunTasks.run(run.tasks, run.jobId, run.run);
      }
      for (const run of runEnds) this.endRun.run(run.endedAtMs, run.outcome, run.jobId, run.run);
    })();
  }

  get(id: string): JobRow | undefined {
    return this.byId.get(id) as JobRow | undefined;
  }

  /** Jobs that still have somewhere to go: queued, running, paused, or failed with a retry scheduled. */
  unfinished(): JobRow[] {
    return this.db
      .prepare(
        `SELECT ${COLUMNS} FROM jobs WHERE status IN ('queued', 'running', 'paused')
           OR (status = 'failed' AND next_retry_at_ms IS NOT NULL) ORDER BY queue_order`,
      )
      .all() as JobRow[];
  }

  maxQueueOrder(): number {
    return (this.db.prepare(`SELECT COALESCE(MAX(queue_order), 0) AS n FROM jobs`).get() as { n: number }).n;
  }

  /** Newest-updated first; one more row than `limit` tells whether a next page exists. */
  list(query: JobListQuery): JobRow[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (query.statuses && query.statuses.length > 0) {
      where.push(`status IN (${query.statuses.map(() => '?').join(', ')})`);
      args.push(...query.statuses);
    }
    if (query.search) {
      where.push(`(instr(lower(name), ?) > 0 OR instr(lower(COALESCE(command, '')), ?) > 0)`);
      args.push(query.search, query.search);
    }
    if (query.after) {
      where.push(`(updated_at_ms < ? OR (updated_at_ms = ? AND id < ?))`);
      args.push(query.after.updatedAtMs, query.after.updatedAtMs, query.after.id);
    }
    const sql = `SELECT ${COLUMNS} FROM jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY updated_at_ms DESC, id DESC LIMIT ?`;
    return this.db.prepare(sql).all(...args, query.limit) as JobRow[];
  }

  runs(jobId: string): JobRunRow[] {
    return this.db
      .prepare(
        `SELECT job_id AS jobId, run, log_path AS logPath, started_at_ms AS startedAtMs, ended_at_ms AS endedAtMs, outcome,
             handle, streamed_bytes AS streamedBytes, tasks
           FROM job_runs WHERE job_id = ? ORDER BY run`,
      )
      .all(jobId) as JobRunRow[];
  }

  delete(id: string): void {
    this.db.prepare(`DELETE FROM jobs WHERE id = ?`).run(id);
  }
}
