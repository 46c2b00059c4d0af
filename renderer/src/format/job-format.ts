import type { Job } from '../../../shared/protocol/index.js';

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

/** "attempt 2 (of at most 4)": the run it is on against the most it can have (a manual retry adds one). */
export function attemptLabel(job: Job): string {
  const run = Math.max(job.runs, 1);
  return job.maxRuns > 1 ? `attempt ${run} (of at most ${job.maxRuns})` : `attempt ${run}`;
}

export const STATUS_LABELS: Readonly<Record<Job['status'], string>> = {
  queued: 'Queued',
  running: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
