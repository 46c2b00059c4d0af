import fs from 'node:fs';
import path from 'node:path';
import {
  JOB_LOG_LINE_MAX_BYTES,
  JOB_LOG_LINES_MAX_BYTES,
  JOB_LOG_SEARCH_MAX_MATCHES,
  RpcError,
  type HandlerParamsOf,
  type JobLogErrorReason,
  type ResultOf,
} from '../../../shared/protocol/index.js';
import { incompleteUtf8Tail } from '../../exec/index.js';
import { readLog } from '../../exec/output-log.js';
import type { JobRunRow, JobStore } from '../../store/job-store.js';
import type { JobEntry } from './job-entry.js';
import { LogLineIndex } from './log-index.js';

/** How much of the newest log `job/read` returns. */
const TAIL_BYTES = 16 * 1024;
const LOST_MARKER = '\r\n\x1b[33m[wheelhouse: this run was lost — it ran inside Wheelhouse, which stopped while it was running]\x1b[0m\r\n';
/** Line indexes kept in memory (the most recently read logs); one costs ~32 KB per million lines. */
const INDEXES_KEPT = 64;

function logError(entry: JobEntry, reason: JobLogErrorReason, message: string, data: Record<string, unknown>): RpcError {
  return RpcError.because(reason, message, { jobId: entry.state.id, ...data });
}

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
  /** By log path, least recently read first. */
  private readonly indexes = new Map<string, LogLineIndex>();

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
      if (attempt === undefined) return { attempt: 0, offset: 0, nextOffset: 0, data: '', size: 0, eof: entry.live === null };
      throw RpcError.because('job.runNotFound', `job ${jobId} has no run ${attempt} (it has ${runs.length})`, { jobId, attempt });
    }
    const size = sizeOf(run.logPath) ?? 0;
    const read = offset < size ? readLog(run.logPath, offset, Math.min(limit, size - offset)) : Buffer.alloc(0);
    const ended = run.endedAtMs !== null || entry.live?.run !== run.run;
    // A character cut in two (by the limit, or by a live log's end) is left whole for the next read.
    const data = ended && offset + read.length >= size ? read : read.subarray(0, read.length - incompleteUtf8Tail(read));
    return { attempt: run.run, offset, nextOffset: offset + data.length, data: data.toString('utf8'), size, eof: ended && offset + data.length >= size };
  }

  /** Lines of one run by number, through its line index. */
  async lines(entry: JobEntry, params: HandlerParamsOf<'job/log/lines'>): Promise<ResultOf<'job/log/lines'>> {
    const run = this.runOf(entry, params.attempt);
    if (!run) return { attempt: params.attempt ?? 0, fromLine: 0, lines: [], clipped: [], lineCount: 0, bytes: 0, ended: entry.live === null };
    const { index, size } = await this.indexOf(entry, run);
    const lineCount = index.lineCount(size);
    const fromLine = params.fromLine ?? Math.max(0, lineCount - params.count);
    if (fromLine > lineCount) {
      throw logError(entry, 'job.lineOutOfRange', `line ${fromLine} is past the end of run ${run.run}'s log (it has ${lineCount} lines)`, { attempt: run.run, fromLine, lineCount });
    }
    const { lines, clipped } = await this.guard(entry, run, () => index.read(fromLine, params.count, size, JOB_LOG_LINE_MAX_BYTES, JOB_LOG_LINES_MAX_BYTES));
    return { attempt: run.run, fromLine, lines, clipped, lineCount, bytes: size, ended: this.ended(entry, run) };
  }

  /** The lines of one run that show `query`. */
  async search(entry: JobEntry, params: HandlerParamsOf<'job/log/search'>): Promise<ResultOf<'job/log/search'>> {
    const run = this.runOf(entry, params.attempt);
    if (!run) return { attempt: params.attempt ?? 0, lines: [], searchedTo: 0, truncated: false };
    const { index, size } = await this.indexOf(entry, run);
    const from = params.fromLine ?? 0;
    const found = await this.guard(entry, run, () => index.search(params.query, from, params.maxMatches ?? JOB_LOG_SEARCH_MAX_MATCHES, size, params.toLine ?? Infinity));
    return { attempt: run.run, ...found };
  }

  /** Every run of a job, oldest first. */
  runs(jobId: string): ResultOf<'job/runs'> {
    return {
      runs: this.store.runs(jobId).map((run) => ({
        run: run.run,
        startedAt: run.startedAtMs,
        endedAt: run.endedAtMs,
        outcome: run.outcome,
        bytes: sizeOf(run.logPath) ?? 0,
        slurmJobId: slurmJobIdOf(run.handle),
      })),
    };
  }

  /** Retention: an ended run's log goes (its row stays, so the job's history is whole; reading it says unreadable). */
  removeRun(logPath: string, detached: boolean): void {
    this.indexes.delete(logPath);
    fs.rmSync(detached ? path.dirname(logPath) : logPath, { recursive: true, force: true });
  }

  deleteAll(jobId: string): void {
    for (const run of this.store.runs(jobId)) {
      this.indexes.delete(run.logPath);
      // A detached run has a folder of its own (its log, scripts and status files).
      fs.rmSync(run.handle === null ? run.logPath : path.dirname(run.logPath), { recursive: true, force: true });
    }
  }

  private runOf(entry: JobEntry, attempt: number | undefined): JobRunRow | null {
    const runs = this.store.runs(entry.state.id);
    const run = attempt === undefined ? runs[runs.length - 1] : runs.find((r) => r.run === attempt);
    if (run) return run;
    // No run yet, or the one starting now (its log is recorded once its process is up): nothing to read so far.
    if (attempt === undefined || entry.live?.run === attempt) return null;
    throw logError(entry, 'job.runNotFound', `job ${entry.state.id} has no run ${attempt} (it has ${runs.length})`, { attempt, runs: runs.length });
  }

  private ended(entry: JobEntry, run: JobRunRow): boolean {
    return run.endedAtMs !== null || entry.live?.run !== run.run;
  }

  /** The run's line index, brought up to the log's size now. */
  private async indexOf(entry: JobEntry, run: JobRunRow): Promise<{ index: LogLineIndex; size: number }> {
    let index = this.indexes.get(run.logPath);
    if (index) this.indexes.delete(run.logPath);
    index ??= new LogLineIndex(run.logPath);
    // Most recently read last; the oldest goes first.
    this.indexes.set(run.logPath, index);
    if (this.indexes.size > INDEXES_KEPT) this.indexes.delete(this.indexes.keys().next().value!);
    // A run whose log was never written (it could not start) reads as empty.
    const size = sizeOf(run.logPath) ?? 0;
    await this.guard(entry, run, () => index.catchUp(size));
    return { index, size };
  }

  /** A log that cannot be read is a typed error naming the run; its index is dropped, to be built again. */
  private async guard<T>(entry: JobEntry, run: JobRunRow, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      this.indexes.delete(run.logPath);
      throw logError(entry, 'job.logUnreadable', `cannot read run ${run.run}'s log: ${(error as Error).message}`, { attempt: run.run });
    }
  }
}

/** A Slurm run's job id: its handle's `pid` (slurm-detached.ts records the job id there). */
function slurmJobIdOf(handle: string | null): number | null {
  if (handle === null) return null;
  try {
    const parsed = JSON.parse(handle) as { environment?: unknown; pid?: unknown };
    return parsed.environment === 'slurm' && typeof parsed.pid === 'number' ? parsed.pid : null;
  } catch {
    return null;
  }
}
