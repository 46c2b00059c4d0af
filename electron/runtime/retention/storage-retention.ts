import fs from 'node:fs';
import path from 'node:path';
import type { RetentionBudgets, StorageUsage } from '../../../shared/protocol/index.js';
import type { StateStore } from '../../store/state-store.js';
import type { EventLog } from '../event-log.js';

export interface PruneReport {
  readonly events: number;
  readonly processLogs: number;
  readonly jobLogs: number;
  readonly checkpoints: number;
}

export interface StorageRetentionOptions {
  readonly store: StateStore;
  readonly events: EventLog;
  readonly stateDb: string;
  /** Agent commands' and command/exec's process logs. */
  readonly processLogDir: string;
  readonly budgets: () => RetentionBudgets;
  readonly now: () => number;
  /** Logs of processes still running: never removed. */
  readonly runningLogs: () => Iterable<string>;
  /** A job run's log is removed through the job logs (their indexes forget it too). */
  readonly removeJobRun: (jobId: string, run: number, logPath: string, detached: boolean) => void;
  readonly onError?: (message: string, error: unknown) => void;
}

const MB = 1024 * 1024;
const DAY = 24 * 60 * 60 * 1000;
/** Free pages handed back to the disk per prune (4 KB each): bounded, so a prune never pauses long. */
const VACUUM_PAGES_PER_PRUNE = 4096;

/**
 * Keeps the home within its budgets: events, process logs, job logs and
 * checkpoints older than the age budget go, then the oldest until each kind
 * fits its size budget. It never removes what the latest turn of an open
 * thread, a turn waiting on an approval, a running process or a job that is
 * not finished needs. A client replaying from a removed seq gets `reset`.
 * Called by the host (at start and on its clock); it keeps no timers itself.
 */
export class StorageRetention {
  constructor(private readonly options: StorageRetentionOptions) {}

  prune(): PruneReport {
    const { store, events, now } = this.options;
    const budgets = this.options.budgets();
    const before = now() - budgets.maxAgeDays * DAY;
    const report = { events: 0, processLogs: 0, jobLogs: 0, checkpoints: 0 };
    this.guard('the event log', () => {
      report.events += events.prune(now());
      report.events += store.retention.pruneEvents(before, budgets.eventLogMb * MB);
    });
    this.guard('process logs', () => this.pruneProcessLogs(before, budgets.processLogsMb * MB, report));
    this.guard('job logs', () => this.pruneJobLogs(before, budgets.jobLogsMb * MB, report));
    this.guard('checkpoints', () => {
      report.checkpoints += store.retention.pruneCheckpoints(before, budgets.checkpointsMb * MB);
    });
    this.guard('the database', () => {
      store.retention.enableIncrementalVacuum();
      store.retention.vacuumSome(VACUUM_PAGES_PER_PRUNE);
    });
    return report;
  }

  /** What storage/usage answers. */
  report(): { usage: StorageUsage; budgets: RetentionBudgets } {
    return { usage: this.usage(), budgets: this.options.budgets() };
  }

  usage(): StorageUsage {
    const { store, stateDb, processLogDir } = this.options;
    const databaseBytes = ['', '-wal', '-shm'].reduce((sum, suffix) => sum + (fileSize(stateDb + suffix) ?? 0), 0);
    const processLogBytes = listFiles(processLogDir).reduce((sum, file) => sum + file.bytes, 0);
    const jobLogBytes = this.jobLogBytes();
    return {
      databaseBytes,
      eventLogBytes: store.retention.eventBytes(),
      checkpointBytes: store.retention.checkpointBytes(),
      processLogBytes,
      jobLogBytes,
      totalBytes: databaseBytes + processLogBytes + jobLogBytes,
    };
  }

  private jobLogBytes(): number {
    const rows = this.options.store.db.prepare('SELECT log_path AS logPath FROM job_runs').all() as { logPath: string }[];
    return rows.reduce((sum, row) => sum + (fileSize(row.logPath) ?? 0), 0);
  }

  private pruneProcessLogs(before: number, maxBytes: number, report: { processLogs: number; events: number }): void {
    const keep = new Set<string>([...this.options.runningLogs(), ...this.options.store.retention.protectedOutputFiles()]);
    const files = listFiles(this.options.processLogDir).sort((a, b) => a.mtimeMs - b.mtimeMs);
    let total = files.reduce((sum, file) => sum + file.bytes, 0);
    for (const file of files) {
      if (file.mtimeMs >= before && total <= maxBytes) break;
      if (keep.has(file.path)) continue;
      // The events pointing into it go first: a replay then says reset instead of finding a hole.
      report.events += this.options.store.retention.forgetOutputFile(file.path);
      fs.rmSync(file.path, { force: true });
      total -= file.bytes;
      report.processLogs += 1;
    }
  }

  private pruneJobLogs(before: number, maxBytes: number, report: { jobLogs: number }): void {
    const runs = this.options.store.retention.removableJobRuns();
    let total = this.jobLogBytes();
    for (const run of runs) {
      const bytes = fileSize(run.logPath);
      if (bytes === null) continue;
      if (run.endedAtMs >= before && total <= maxBytes) break;
      this.options.removeJobRun(run.jobId, run.run, run.logPath, run.detached);
      total -= bytes;
      report.jobLogs += 1;
    }
  }

  private guard(what: string, work: () => void): void {
    try {
      work();
    } catch (error) {
      // One kind failing (a file held open elsewhere, a locked database) must not stop the others.
      this.options.onError?.(`could not prune ${what}`, error);
    }
  }
}

function fileSize(file: string): number | null {
  try {
    return fs.statSync(file).size;
  } catch {
    return null;
  }
}

function listFiles(dir: string): { path: string; bytes: number; mtimeMs: number }[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const files: { path: string; bytes: number; mtimeMs: number }[] = [];
  for (const name of names) {
    const full = path.join(dir, name);
    try {
      const stat = fs.statSync(full);
      if (stat.isFile()) files.push({ path: full, bytes: stat.size, mtimeMs: stat.mtimeMs });
    } catch {
      // Removed meanwhile.
    }
  }
  return files;
}
