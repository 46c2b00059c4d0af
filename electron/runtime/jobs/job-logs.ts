import fs from 'node:fs';
import { RpcError, type ResultOf } from '../../../shared/protocol/index.js';
import { readLog } from '../../exec/output-log.js';
import type { JobStore } from '../../store/job-store.js';
import type { JobEntry } from './job-entry.js';

/** How much of the newest log `job/read` returns. */
const TAIL_BYTES = 16 * 1024;
const INTERRUPTED_MARKER = '\r\n\x1b[33m[wheelhouse: this run was interrupted — Wheelhouse stopped while it was running]\x1b[0m\r\n';

function sizeOf(file: string): number | null {
  try {
    return fs.statSync(file).size;
  } catch {
    return null;
  }
}

/**
 * Each run's output, on disk: the supervisor writes it (capped, with a
 * marker at the cap) before any client sees it, so it survives a crash up to
 * the last byte shown. `job_runs` says which file belongs to which run.
 */
export class JobLogs {
  constructor(private readonly store: JobStore) {}

  /** At start-up: the run that was live when the app died gets a visible marker; returns its number. */
  markInterrupted(jobId: string): number | null {
    const open = this.store.runs(jobId).filter((run) => run.endedAtMs === null);
    const last = open[open.length - 1];
    if (!last) return null;
    try {
      fs.appendFileSync(last.logPath, INTERRUPTED_MARKER);
    } catch {
      // A log that cannot be written to still has its output; the job's detail says what happened.
    }
    return last.run;
  }

  tail(jobId: string): string {
    const runs = this.store.runs(jobId);
    const last = runs[runs.length - 1];
    if (!last) return '';
    const size = sizeOf(last.logPath);
    if (size === null) return '';
    const from = Math.max(0, size - TAIL_BYTES);
    return readLog(last.logPath, from, size - from).toString('utf8');
  }

  read(entry: JobEntry, attempt: number | undefined, offset: number, limit: number): ResultOf<'job/log'> {
    const jobId = entry.state.id;
    const runs = this.store.runs(jobId);
    const run = attempt === undefined ? runs[runs.length - 1] : runs.find((r) => r.run === attempt);
    if (!run) {
      if (attempt === undefined) return { attempt: 0, offset: 0, data: '', size: 0, eof: entry.live === null };
      throw new RpcError(-32600, `job ${jobId} has no run ${attempt} (it has ${runs.length})`, { jobId, attempt });
    }
    const size = sizeOf(run.logPath) ?? 0;
    const data = offset < size ? readLog(run.logPath, offset, Math.min(limit, size - offset)) : Buffer.alloc(0);
    const ended = run.endedAtMs !== null || entry.live?.run !== run.run;
    return { attempt: run.run, offset, data: data.toString('utf8'), size, eof: ended && offset + data.length >= size };
  }

  deleteAll(jobId: string): void {
    for (const run of this.store.runs(jobId)) fs.rmSync(run.logPath, { force: true });
  }
}
