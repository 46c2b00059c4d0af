import { JOB_LIST_DEFAULT_LIMIT, RpcError, type HandlerParamsOf, type ResultOf } from '../../../shared/protocol/index.js';
import type { JobStore } from '../../store/job-store.js';
import type { JobCommits } from './job-commits.js';
import { jobOf } from './job-entry.js';
import type { JobLogs } from './job-logs.js';
import type { JobTable } from './job-table.js';

/** What job/list, job/read, job/runs and the job/log methods answer: nothing here changes a job. */
export class JobReads {
  constructor(
    private readonly table: JobTable,
    private readonly store: JobStore,
    private readonly commits: JobCommits,
    private readonly logs: JobLogs,
  ) {}

  list(params: HandlerParamsOf<'job/list'>): ResultOf<'job/list'> {
    const limit = params.limit ?? JOB_LIST_DEFAULT_LIMIT;
    const statuses = params.status == null ? undefined : Array.isArray(params.status) ? params.status : [params.status];
    const search = params.search?.trim().toLowerCase() || undefined;
    const after = params.cursor ? decodeCursor(params.cursor) : undefined;
    const rows = this.store.list({ ...(statuses ? { statuses } : {}), ...(search ? { search } : {}), ...(after ? { after } : {}), limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map(jobOf),
      nextCursor: rows.length > limit && last ? Buffer.from(JSON.stringify([last.updatedAtMs, last.id])).toString('base64url') : null,
    };
  }

  async read(jobId: string): Promise<ResultOf<'job/read'>> {
    // What is answered must be durable: a change made a moment ago is written first.
    await this.commits.committed();
    const entry = this.table.lookup(jobId);
    return { job: this.table.jobNow(entry), history: entry.state.history.map((h) => ({ ...h, retry: { ...h.retry } })), logTail: this.logs.tail(jobId) };
  }

  log(params: HandlerParamsOf<'job/log'>): ResultOf<'job/log'> {
    const entry = this.table.lookup(params.jobId);
    return this.logs.read(entry, params.attempt, params.offset ?? 0, params.limit ?? 64 * 1024);
  }

  logLines(params: HandlerParamsOf<'job/log/lines'>): Promise<ResultOf<'job/log/lines'>> {
    return this.logs.lines(this.table.lookup(params.jobId), params);
  }

  logSearch(params: HandlerParamsOf<'job/log/search'>): Promise<ResultOf<'job/log/search'>> {
    return this.logs.search(this.table.lookup(params.jobId), params);
  }

  runs(jobId: string): ResultOf<'job/runs'> {
    this.table.lookup(jobId);
    return this.logs.runs(jobId);
  }
}

function decodeCursor(cursor: string): { updatedAtMs: number; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') return { updatedAtMs: value[0], id: value[1] };
  } catch {
    // Reported below.
  }
  throw RpcError.invalidParams('invalid params for job/list: cursor: not a cursor returned by job/list');
}
