import type { Db } from './database.js';

/**
 * The queries retention needs across tables: what must be kept (the latest
 * turn of every open thread, turns waiting on an approval, running jobs) and
 * what may go, oldest first. Deleting events always records the newest seq
 * removed, so a replay from before it gets `reset`.
 */
export class RetentionStore {
  // A NULL in a NOT IN list makes it never true: threads without turns are left out.
  private readonly protectedTurns = `
    SELECT id FROM (SELECT (SELECT id FROM turns WHERE turns.thread_id = threads.id ORDER BY ordinal DESC LIMIT 1) AS id
      FROM threads WHERE archived = 0) WHERE id IS NOT NULL
    UNION SELECT turn_id FROM pending_approvals WHERE state = 'pending'`;

  constructor(private readonly db: Db) {}

  /** Roughly what the event rows take (payload plus a row's columns and index entries). */
  eventBytes(): number {
    const row = this.db.prepare('SELECT COALESCE(SUM(LENGTH(payload)), 0) AS bytes, COUNT(*) AS n FROM events').get() as { bytes: number; n: number };
    return row.bytes + row.n * 160;
  }

  checkpointBytes(): number {
    return (this.db.prepare('SELECT COALESCE(SUM(LENGTH(state)), 0) AS bytes FROM checkpoints').get() as { bytes: number }).bytes;
  }

  /**
   * Deletes events older than `beforeMs`, then the oldest until the rows fit
   * `maxBytes`, never those of a protected turn. Returns rows removed.
   */
  pruneEvents(beforeMs: number, maxBytes: number): number {
    return this.db.transaction(() => {
      let removed = this.deleteEvents(`created_at_ms < ? AND ${this.unprotected()}`, [beforeMs]);
      let over = this.eventBytes() - maxBytes;
      while (over > 0) {
        // The oldest quarter of what is over, in seq order: a few rounds at most.
        const rows = this.db
          .prepare(`SELECT seq, LENGTH(payload) + 160 AS bytes FROM events WHERE ${this.unprotected()} ORDER BY seq LIMIT 2000`)
          .all() as { seq: number; bytes: number }[];
        if (rows.length === 0) break;
        let through = rows[0]!.seq;
        let freed = 0;
        for (const row of rows) {
          through = row.seq;
          freed += row.bytes;
          if (freed >= over) break;
        }
        removed += this.deleteEvents(`seq <= ? AND ${this.unprotected()}`, [through]);
        over -= freed;
      }
      return removed;
    })();
  }

  /** Deletes every event whose output lives in `file` (its bytes are about to go) and forgets the file. */
  forgetOutputFile(file: string): number {
    return this.db.transaction(() => {
      const id = (this.db.prepare('SELECT id FROM output_files WHERE path = ?').get(file) as { id: number } | undefined)?.id;
      if (id === undefined) return 0;
      const removed = this.deleteEvents('output_file = ?', [id]);
      this.db.prepare('DELETE FROM output_files WHERE id = ?').run(id);
      return removed;
    })();
  }

  /** Process logs a protected turn's replay still reads. */
  protectedOutputFiles(): Set<string> {
    const rows = this.db
      .prepare(`SELECT DISTINCT output_files.path AS path FROM events JOIN output_files ON output_files.id = events.output_file
        WHERE events.turn_id IN (${this.protectedTurns})`)
      .all() as { path: string }[];
    return new Set(rows.map((row) => row.path));
  }

  /** Ended runs of jobs that are not queued, running or paused, oldest end first. */
  removableJobRuns(): { jobId: string; run: number; logPath: string; detached: boolean; endedAtMs: number }[] {
    return (
      this.db
        .prepare(`SELECT job_runs.job_id AS jobId, run, log_path AS logPath, handle IS NOT NULL AS detached, ended_at_ms AS endedAtMs
          FROM job_runs JOIN jobs ON jobs.id = job_runs.job_id
          WHERE ended_at_ms IS NOT NULL AND jobs.status NOT IN ('queued', 'running', 'paused')
          ORDER BY ended_at_ms`)
        .all() as { jobId: string; run: number; logPath: string; detached: number; endedAtMs: number }[]
    ).map((row) => ({ ...row, detached: row.detached === 1 }));
  }

  /** Checkpoints of archived threads older than `beforeMs`, then the oldest of them until all fit `maxBytes`. */
  pruneCheckpoints(beforeMs: number, maxBytes: number): number {
    return this.db.transaction(() => {
      const archived = 'thread_id IN (SELECT id FROM threads WHERE archived = 1)';
      let removed = this.db.prepare(`DELETE FROM checkpoints WHERE created_at_ms < ? AND ${archived}`).run(beforeMs).changes;
      const oldest = this.db.prepare(`SELECT thread_id AS threadId, checkpoint_id AS id, LENGTH(state) AS bytes FROM checkpoints WHERE ${archived} ORDER BY created_at_ms`).all() as { threadId: string; id: string; bytes: number }[];
      let over = this.checkpointBytes() - maxBytes;
      const remove = this.db.prepare('DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?');
      for (const row of oldest) {
        if (over <= 0) break;
        removed += remove.run(row.threadId, row.id).changes;
        over -= row.bytes;
      }
      return removed;
    })();
  }

  /** Gives free pages back to the file system, a bounded number per call (incremental, so no long pause). */
  vacuumSome(pages: number): void {
    if ((this.db.pragma('auto_vacuum', { simple: true }) as number) === 2) this.db.pragma(`incremental_vacuum(${pages})`);
  }

  /** Once, for a home made before incremental vacuum: switch it on (a full VACUUM, outside any transaction). */
  enableIncrementalVacuum(): void {
    if ((this.db.pragma('auto_vacuum', { simple: true }) as number) === 2) return;
    this.db.pragma('auto_vacuum = INCREMENTAL');
    this.db.exec('VACUUM');
  }

  private unprotected(): string {
    return `(turn_id IS NULL OR turn_id NOT IN (${this.protectedTurns}))`;
  }

  private deleteEvents(where: string, args: unknown[]): number {
    const newest = (this.db.prepare(`SELECT MAX(seq) AS max FROM events WHERE ${where}`).get(...args) as { max: number | null }).max;
    if (newest === null) return 0;
    this.db.prepare('UPDATE event_sequence SET pruned_through_seq = MAX(pruned_through_seq, ?) WHERE id = 1').run(newest);
    return this.db.prepare(`DELETE FROM events WHERE ${where}`).run(...args).changes;
  }
}
