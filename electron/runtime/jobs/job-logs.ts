import fs from 'node:fs';
import path from 'node:path';
import { RpcError, type ResultOf } from '../../../shared/protocol/index.js';
import { incompleteUtf8Tail } from '../../exec/index.js';
import { readLog } from '../../exec/output-log.js';
import type { JobRunRow, JobStore } from '../../store/job-store.js';
import type { JobEntry } from './job-entry.js';

/** How much of the newest log `job/read` returns. */
const TAIL_BYTES = 16 * 1024;
const LOST_MARKER = '\r\n\x1b[33m[wheelhouse: this run was lost — it ran inside Wheelhouse, which stopped while it was running]\x1b[0m\r\n';

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

  /** At start-up: a run that lived inside the app that died gets a visible marker at the end of its log. */
  markLost(run: JobRunRow): void {
    try {
      fs.appendFileSync(run.logPath, LOST_MARKER);
    } catch {
      // A log that cannot be written to still has its output; the job's detail says what happened.
    }
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
    const read = offset < size ? readLog(run.logPath, offset, Math.min(limit, size - offset)) : Buffer.alloc(0);
    const ended = run.endedAtMs !== null || entry.live?.run !== run.run;
    // Whole characters only, so `offset` plus the bytes of `data` is where the next read begins.
    const data = ended && offset + read.length >= size ? read : read.subarray(0, read.length - incompleteUtf8Tail(read));
    return { attempt: run.run, offset, data: data.toString('utf8'), size, eof: ended && offset + data.length >= size };
  }

  deleteAll(jobId: string): void {
    for (const run of this.store.runs(jobId)) {
      // A detached run has a folder of its own (its log, scripts and status files).
      fs.rmSync(run.handle === null ? run.logPath : path.dirname(run.logPath), { recursive: true, force: true });
    }
  }
}
