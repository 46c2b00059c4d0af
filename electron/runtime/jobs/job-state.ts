import type { JobStatus } from '../../../shared/protocol/index.js';

/**
 * Seed 000's JobManager state machine, transition by transition: statuses,
 * retry metadata with doubling backoff, a history capped at 64 entries, and
 * the persisted detail (schema version + fallback). Times are ms epoch (the
 * seed used seconds and rounded the backoff up to one; here it is exact).
 * Pure: no clock, no I/O — the engine passes `now`.
 */

export const JOB_DETAIL_SCHEMA_VERSION = 1;
export const DEFAULT_JOB_MAX_ATTEMPTS = 3;
export const DEFAULT_JOB_BACKOFF_BASE_MS = 500;
export const MAX_JOB_HISTORY_ENTRIES = 64;

export interface JobRetryMetadata {
  attempt: number;
  maxAttempts: number;
  backoffBaseMs: number;
  nextBackoffMs: number;
  nextRetryAt: number | null;
}

export interface JobHistoryEntry {
  readonly at: number;
  readonly phase: string;
  readonly status: JobStatus;
  readonly progress: number | null;
  readonly detail: string | null;
  readonly retry: JobRetryMetadata;
}

/** The seed's JobRecord: what the state machine owns. */
export interface JobStateRecord {
  readonly id: string;
  name: string;
  status: JobStatus;
  progress: number | null;
  detail: string | null;
  retry: JobRetryMetadata;
  history: JobHistoryEntry[];
  readonly createdAt: number;
  updatedAt: number;
}

export function defaultRetry(maxAttempts = DEFAULT_JOB_MAX_ATTEMPTS): JobRetryMetadata {
  return { attempt: 0, maxAttempts, backoffBaseMs: DEFAULT_JOB_BACKOFF_BASE_MS, nextBackoffMs: 0, nextRetryAt: null };
}

/** base × 2^(attempt−1): 500, 1000, 2000 … ms; 0 before the first retry. The exponent stops at 20. */
export function deterministicBackoffMs(retry: JobRetryMetadata): number {
  if (retry.attempt === 0) return 0;
  const exponent = Math.min(Math.max(retry.attempt - 1, 0), 20);
  return retry.backoffBaseMs * 2 ** exponent;
}

function clearRetrySchedule(retry: JobRetryMetadata): void {
  retry.nextBackoffMs = 0;
  retry.nextRetryAt = null;
}

/**
 * Appends a transition and drops the oldest beyond the cap. A progress update
 * right after another replaces it, so a job printing fast cannot push its real
 * transitions (created, running, paused…) out of the capped history.
 */
export function pushHistory(job: JobStateRecord, phase: string): void {
  const entry: JobHistoryEntry = {
    at: job.updatedAt,
    phase,
    status: job.status,
    progress: job.progress,
    detail: job.detail,
    retry: { ...job.retry },
  };
  const last = job.history[job.history.length - 1];
  if (phase === 'progress_updated' && last?.phase === 'progress_updated') job.history[job.history.length - 1] = entry;
  else job.history.push(entry);
  if (job.history.length > MAX_JOB_HISTORY_ENTRIES) job.history.splice(0, job.history.length - MAX_JOB_HISTORY_ENTRIES);
}

export function enqueue(id: string, name: string, now: number, maxAttempts = DEFAULT_JOB_MAX_ATTEMPTS): JobStateRecord {
  const job: JobStateRecord = {
    id,
    name,
    status: 'queued',
    progress: 0,
    detail: null,
    retry: defaultRetry(maxAttempts),
    history: [],
    createdAt: now,
    updatedAt: now,
  };
  pushHistory(job, 'created');
  return job;
}

export function setRunning(job: JobStateRecord, now: number): void {
  job.status = 'running';
  clearRetrySchedule(job.retry);
  job.updatedAt = now;
  pushHistory(job, 'running');
}

export function updateProgress(job: JobStateRecord, progress: number | null, detail: string | null, now: number): void {
  job.progress = progress === null ? null : Math.min(100, Math.max(0, Math.round(progress)));
  job.detail = detail;
  job.updatedAt = now;
  pushHistory(job, 'progress_updated');
}

export function complete(job: JobStateRecord, now: number): void {
  job.status = 'completed';
  job.progress = 100;
  clearRetrySchedule(job.retry);
  job.updatedAt = now;
  pushHistory(job, 'completed');
}

/** Failed; while retries are left, the next one is scheduled `backoff` from now. */
export function fail(job: JobStateRecord, detail: string, now: number): void {
  job.status = 'failed';
  job.detail = detail;
  if (job.retry.attempt < job.retry.maxAttempts) {
    job.retry.attempt += 1;
    job.retry.nextBackoffMs = deterministicBackoffMs(job.retry);
    job.retry.nextRetryAt = now + job.retry.nextBackoffMs;
  } else {
    clearRetrySchedule(job.retry);
  }
  job.updatedAt = now;
  pushHistory(job, 'failed');
}

/** Failed for good: retrying on a schedule would only fail the same way (a goal blocked or out of budget). */
export function failWithoutRetry(job: JobStateRecord, detail: string, now: number): void {
  job.status = 'failed';
  job.detail = detail;
  clearRetrySchedule(job.retry);
  job.updatedAt = now;
  pushHistory(job, 'failed');
}

/**
 * A scheduled automatic retry that will not run (the person retried now, or cancelled) is given
 * back: `attempt` counts only automatic retries that ran or are still to run.
 */
export function withdrawScheduledRetry(job: JobStateRecord): void {
  if (job.retry.nextRetryAt === null) return;
  job.retry.attempt = Math.max(0, job.retry.attempt - 1);
  clearRetrySchedule(job.retry);
}

export function cancel(job: JobStateRecord, now: number, detail?: string): void {
  job.status = 'cancelled';
  if (detail !== undefined) job.detail = detail;
  clearRetrySchedule(job.retry);
  job.updatedAt = now;
  pushHistory(job, 'cancelled');
}

export function pause(job: JobStateRecord, detail: string | null, now: number): void {
  job.status = 'paused';
  if (detail !== null) job.detail = detail;
  job.updatedAt = now;
  pushHistory(job, 'paused');
}

export function resume(job: JobStateRecord, detail: string | null, now: number): void {
  job.status = 'running';
  if (detail !== null) job.detail = detail;
  clearRetrySchedule(job.retry);
  job.updatedAt = now;
  pushHistory(job, 'resumed');
}

/**
 * Back to the queue (not in the seed, which only re-queues at restart): a
 * scheduled retry falling due, a paused job that never started, or "retry now".
 */
export function requeue(job: JobStateRecord, phase: string, detail: string | null, now: number): void {
  job.status = 'queued';
  if (detail !== null) job.detail = detail;
  clearRetrySchedule(job.retry);
  job.updatedAt = now;
  pushHistory(job, phase);
}

/** After a restart: queued and running jobs go back to the queue (seed `resume_pending`). */
export function resumePending(jobs: Iterable<JobStateRecord>, now: number, detailFor?: (job: JobStateRecord) => string | null): JobStateRecord[] {
  const resumed: JobStateRecord[] = [];
  for (const job of jobs) {
    if (job.status !== 'queued' && job.status !== 'running') continue;
    const detail = detailFor?.(job) ?? null;
    if (detail !== null) job.detail = detail;
    job.status = 'queued';
    job.updatedAt = now;
    pushHistory(job, 'queued_after_resume');
    resumed.push(job);
  }
  return resumed;
}

interface PersistedJobDetail {
  readonly status: JobStatus;
  readonly detail: string | null;
  readonly retry: JobRetryMetadata;
  readonly history: JobHistoryEntry[];
}

const STATUSES = new Set<string>(['queued', 'running', 'paused', 'completed', 'failed', 'cancelled']);
const isStatus = (value: unknown): value is JobStatus => typeof value === 'string' && STATUSES.has(value);
const int = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : undefined);
const optionalString = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The seed's `parse_retry_metadata`: missing fields take their defaults. */
export function parseRetry(value: unknown): JobRetryMetadata {
  if (typeof value !== 'object' || value === null) return defaultRetry();
  const v = value as Record<string, unknown>;
  return {
    attempt: Math.max(0, int(v.attempt) ?? 0),
    maxAttempts: Math.max(0, int(v.max_attempts) ?? DEFAULT_JOB_MAX_ATTEMPTS),
    backoffBaseMs: Math.max(0, int(v.backoff_base_ms) ?? DEFAULT_JOB_BACKOFF_BASE_MS),
    nextBackoffMs: Math.max(0, int(v.next_backoff_ms) ?? 0),
    nextRetryAt: int(v.next_retry_at) ?? null,
  };
}

function parseHistoryEntry(value: unknown): JobHistoryEntry | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (!isStatus(v.status)) return null;
  const progress = int(v.progress);
  return {
    at: int(v.at) ?? 0,
    phase: typeof v.phase === 'string' ? v.phase : 'unknown',
    status: v.status,
    progress: progress === undefined ? null : Math.min(100, Math.max(0, progress)),
    detail: optionalString(v.detail),
    retry: parseRetry(v.retry),
  };
}

/** The seed's `parse_persisted_detail`: null when the text is not a detail with a known status. */
export function parsePersistedDetail(raw: string | null): PersistedJobDetail | null {
  if (raw === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const v = parsed as Record<string, unknown>;
  if (!isStatus(v.status)) return null;
  const history = Array.isArray(v.history) ? v.history.map(parseHistoryEntry).filter((e): e is JobHistoryEntry => e !== null) : [];
  return { status: v.status, detail: optionalString(v.detail), retry: parseRetry(v.retry), history };
}

const retryToValue = (retry: JobRetryMetadata) => ({
  attempt: retry.attempt,
  max_attempts: retry.maxAttempts,
  backoff_base_ms: retry.backoffBaseMs,
  next_backoff_ms: retry.nextBackoffMs,
  next_retry_at: retry.nextRetryAt,
});

/** Each history entry's JSON, made once: a job's detail is re-encoded at every commit, its old entries never change. */
const encodedEntries = new WeakMap<JobHistoryEntry, string>();

function encodeEntry(entry: JobHistoryEntry): string {
  let json = encodedEntries.get(entry);
  if (json === undefined) {
    json = JSON.stringify({ ...entry, retry: retryToValue(entry.retry) });
    encodedEntries.set(entry, json);
  }
  return json;
}

/** A record's history as JSON, reused while its entries are the same (most commits add none: progress replaces the last). */
const encodedHistories = new WeakMap<JobStateRecord, { first: JobHistoryEntry | undefined; last: JobHistoryEntry | undefined; length: number; json: string }>();

function encodeHistory(job: JobStateRecord): string {
  const { history } = job;
  const first = history[0];
  const last = history[history.length - 1];
  const cached = encodedHistories.get(job);
  if (cached && cached.length === history.length && cached.first === first && cached.last === last) return cached.json;
  let json = '';
  for (let i = 0; i < history.length; i += 1) json += (i === 0 ? '' : ',') + encodeEntry(history[i]!);
  encodedHistories.set(job, { first, last, length: history.length, json });
  return json;
}

export function encodePersistedDetail(job: JobStateRecord): string {
  // Written out by hand (same keys and order as JSON.stringify of the object): this runs at every commit of every job.
  const retry = job.retry;
  return (
    `{"schema_version":${JOB_DETAIL_SCHEMA_VERSION},"status":${JSON.stringify(job.status)},"detail":${JSON.stringify(job.detail)},` +
    `"retry":{"attempt":${retry.attempt},"max_attempts":${retry.maxAttempts},"backoff_base_ms":${retry.backoffBaseMs},` +
    `"next_backoff_ms":${retry.nextBackoffMs},"next_retry_at":${JSON.stringify(retry.nextRetryAt)}},"history":[${encodeHistory(job)}]}`
  );
}

/** A stored row's columns, as the seed's `load_from_store` reads them. */
export interface StoredJobColumns {
  readonly id: string;
  readonly name: string;
  readonly status: JobStatus;
  readonly progress: number | null;
  readonly detail: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/**
 * Rebuilds a record; a detail that cannot be read falls back to the row's
 * status column, its raw text as the detail, default retry metadata and no history.
 */
export function fromStored(row: StoredJobColumns): JobStateRecord {
  const parsed = parsePersistedDetail(row.detail);
  const base = { id: row.id, name: row.name, progress: row.progress, createdAt: row.createdAt, updatedAt: row.updatedAt };
  return parsed
    ? { ...base, status: parsed.status, detail: parsed.detail, retry: parsed.retry, history: parsed.history }
    : { ...base, status: row.status, detail: row.detail, retry: defaultRetry(), history: [] };
}
