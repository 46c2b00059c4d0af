import type { Job, JobHistoryEntry } from '../../../shared/protocol/index.js';

/** "45 s", "3 m 05 s", "2 h 04 m": compact, for durations and ETAs. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  if (total < 60) return `${total} s`;
  const minutes = Math.floor(total / 60);
  if (minutes < 60) return `${minutes} m ${String(total % 60).padStart(2, '0')} s`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${String(minutes % 60).padStart(2, '0')} m`;
}

/** Running time so far: the runtime's figure as of `updatedAt`, plus the time since while it runs. */
export function jobDurationMs(job: Job, now: number): number {
  return job.activeMs + (job.status === 'running' ? Math.max(0, now - job.updatedAt) : 0);
}

/** "~2 m 10 s left", counted down from the runtime's estimate while it runs; null when unknown. */
export function etaLabel(job: Job, now: number): string | null {
  if (job.etaMs === null || job.status !== 'running') return null;
  const left = job.etaMs - Math.max(0, now - job.updatedAt);
  return left > 0 ? `~${formatDuration(left)} left` : 'almost done';
}

/** "retry in 4 s" while an automatic retry is scheduled. */
export function retryCountdown(job: Job, now: number): string | null {
  if (job.nextRetryAt === null) return null;
  const left = job.nextRetryAt - now;
  return left > 500 ? `retry in ${formatDuration(left)}` : 'retrying…';
}

/** Automatic retries the job may still use after its current (or next) attempt. */
const retriesLeft = (job: Job) => Math.max(0, job.maxAttempts - job.attempt);

/**
 * "attempt 2 (of at most 4)": the attempt running (or, while it waits, the
 * next one) and how many there can be at most if each fails and is retried;
 * a finished job says how many it took ("2 attempts").
 */
export function attemptLabel(job: Job): string {
  let next: number | null = null;
  if (job.status === 'running' || job.status === 'paused') next = Math.max(job.runs, 1);
  else if (job.status === 'queued' || (job.status === 'failed' && job.nextRetryAt !== null)) next = job.runs + 1;
  if (next !== null) {
    const most = next + retriesLeft(job);
    // With no retries there is nothing to count up to.
    return most > 1 ? `attempt ${next} (of at most ${most})` : `attempt ${next}`;
  }
  return job.runs === 0 ? 'never ran' : job.runs === 1 ? '1 attempt' : `${job.runs} attempts`;
}

/**
 * The job's detail while it still describes the job: one carried over from
 * before the job entered its current state is about an earlier attempt
 * ("cancelled (ended by SIGTERM)", "retry 1 of 3" while the retry runs) and is
 * left out. Without the history (not loaded yet) the detail is taken as it is.
 */
export function currentDetail(job: Job, history: readonly JobHistoryEntry[] | undefined): string | null {
  if (job.detail === null || !history || history.length === 0) return job.detail;
  let start = history.length;
  while (start > 0 && history[start - 1]!.status === job.status) start -= 1;
  // The history does not reach the current state yet (an update ahead of it), or it began in it.
  if (start === history.length || start === 0) return job.detail;
  const carried = history[start - 1]!.detail === job.detail && history.slice(start).every((entry) => entry.detail === job.detail);
  return carried ? null : job.detail;
}

/** The one line under a job's name that says where it stands now: state, attempt, what happened, the retry countdown. */
export function jobStatusLine(job: Job, detail: string | null, now: number): string {
  const attempts = attemptLabel(job);
  let state: string;
  switch (job.status) {
    case 'queued':
      state = job.runs === 0 ? 'Waiting to start' : `Waiting to start ${attempts}`;
      break;
    case 'running':
      state = `Running ${attempts}`;
      break;
    case 'paused':
      state = `Paused during ${attempts}`;
      break;
    case 'failed':
      if (job.nextRetryAt !== null) {
        const left = job.nextRetryAt - now;
        state = `Failed; ${attempts} starts ${left > 500 ? `in ${formatDuration(left)}` : 'now'}`;
      } else {
        state = `Failed after ${attempts}`;
      }
      break;
    case 'cancelled':
      state = job.runs === 0 ? 'Cancelled before it started' : `Cancelled after ${attempts}`;
      break;
    case 'completed':
      state = `Completed in ${attempts}`;
      break;
  }
  return detail ? `${state} · ${detail}` : state;
}

export const STATUS_LABELS: Readonly<Record<Job['status'], string>> = {
  queued: 'Queued',
  running: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
