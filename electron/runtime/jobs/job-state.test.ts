import { describe, expect, it } from 'vitest';
import * as machine from './job-state.js';

const T0 = 1_700_000_000_000;

describe('seed 000 job state machine', () => {
  it('starts queued at 0% with 3 retries of 500 ms doubling, and a "created" entry', () => {
    const job = machine.enqueue('job-1', 'build', T0);
    expect(job).toMatchObject({ status: 'queued', progress: 0, detail: null, createdAt: T0, updatedAt: T0 });
    expect(job.retry).toEqual({ attempt: 0, maxAttempts: 3, backoffBaseMs: 500, nextBackoffMs: 0, nextRetryAt: null });
    expect(job.history.map((h) => h.phase)).toEqual(['created']);
  });

  it('schedules retries 500, 1000, 2000 ms after each failure, then stops', () => {
    const job = machine.enqueue('job-1', 'build', T0);
    const seen: Array<[number, number, number | null]> = [];
    let now = T0;
    for (let run = 0; run < 4; run += 1) {
      machine.setRunning(job, now);
      expect(job.retry.nextRetryAt).toBeNull();
      now += 10;
      machine.fail(job, `exit ${run}`, now);
      seen.push([job.retry.attempt, job.retry.nextBackoffMs, job.retry.nextRetryAt === null ? null : job.retry.nextRetryAt - now]);
    }
    expect(seen).toEqual([
      [1, 500, 500],
      [2, 1000, 1000],
      [3, 2000, 2000],
      [3, 0, null],
    ]);
    expect(job.status).toBe('failed');
    expect(job.detail).toBe('exit 3');
  });

  it('caps the backoff exponent at 20', () => {
    const retry = { ...machine.defaultRetry(100), attempt: 50 };
    expect(machine.deterministicBackoffMs(retry)).toBe(500 * 2 ** 20);
    expect(machine.deterministicBackoffMs({ ...retry, attempt: 0 })).toBe(0);
  });

  it('keeps the newest 64 history entries', () => {
    const job = machine.enqueue('job-1', 'x', T0);
    for (let i = 1; i <= 70; i += 1) {
      if (i % 2) machine.pause(job, `p${i}`, T0 + i);
      else machine.resume(job, `r${i}`, T0 + i);
    }
    expect(job.history).toHaveLength(64);
    expect(job.history[0]!.at).toBe(T0 + 7);
    expect(job.history.at(-1)).toMatchObject({ at: T0 + 70, phase: 'resumed', status: 'running', detail: 'r70' });
  });

  it('keeps one entry for a run of progress updates, so they cannot push transitions out', () => {
    const job = machine.enqueue('job-1', 'x', T0);
    machine.setRunning(job, T0);
    for (let p = 0; p <= 100; p += 1) machine.updateProgress(job, p, null, T0 + p);
    expect(job.history.map((h) => [h.phase, h.progress])).toEqual([
      ['created', 0],
      ['running', 0],
      ['progress_updated', 100],
    ]);
  });

  it('completes at 100% and cancels with the retry schedule cleared', () => {
    const job = machine.enqueue('job-1', 'x', T0);
    machine.setRunning(job, T0);
    machine.fail(job, 'boom', T0 + 1);
    expect(job.retry.nextRetryAt).toBe(T0 + 501);
    machine.cancel(job, T0 + 2);
    expect(job.retry).toMatchObject({ attempt: 1, nextBackoffMs: 0, nextRetryAt: null });
    const other = machine.enqueue('job-2', 'y', T0);
    machine.updateProgress(other, 40, 'half', T0 + 1);
    machine.complete(other, T0 + 2);
    expect(other).toMatchObject({ status: 'completed', progress: 100 });
  });

  it('re-queues queued and running jobs after a restart as queued_after_resume, and nothing else', () => {
    const jobs = ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled'].map((status, i) => {
      const job = machine.enqueue(`job-${i}`, status, T0);
      job.status = status as machine.JobStateRecord['status'];
      return job;
    });
    const resumed = machine.resumePending(jobs, T0 + 5);
    expect(resumed.map((j) => j.id)).toEqual(['job-0', 'job-1']);
    expect(jobs.map((j) => j.status)).toEqual(['queued', 'queued', 'paused', 'completed', 'failed', 'cancelled']);
    expect(resumed.map((j) => j.history.at(-1)!.phase)).toEqual(['queued_after_resume', 'queued_after_resume']);
    expect(resumed[1]!.updatedAt).toBe(T0 + 5);
  });

  it('persists the detail with its schema version and reads it back whole', () => {
    const job = machine.enqueue('job-1', 'x', T0);
    machine.setRunning(job, T0 + 1);
    machine.fail(job, 'exit 2', T0 + 2);
    const raw = machine.encodePersistedDetail(job);
    expect(JSON.parse(raw)).toMatchObject({ schema_version: 1, status: 'failed', retry: { attempt: 1, max_attempts: 3, next_retry_at: T0 + 502 } });
    const back = machine.fromStored({ id: 'job-1', name: 'x', status: 'queued', progress: 0, detail: raw, createdAt: T0, updatedAt: T0 + 2 });
    expect(back.status).toBe('failed');
    expect(back.retry).toEqual(job.retry);
    expect(back.history).toEqual(job.history);
  });

  it('encodes the detail exactly as JSON.stringify would, also after the history changed (cap, replaced progress)', () => {
    const reference = (job: machine.JobStateRecord) =>
      JSON.stringify({
        schema_version: machine.JOB_DETAIL_SCHEMA_VERSION,
        status: job.status,
        detail: job.detail,
        retry: { attempt: job.retry.attempt, max_attempts: job.retry.maxAttempts, backoff_base_ms: job.retry.backoffBaseMs, next_backoff_ms: job.retry.nextBackoffMs, next_retry_at: job.retry.nextRetryAt },
        history: job.history.map((h) => ({ ...h, retry: { attempt: h.retry.attempt, max_attempts: h.retry.maxAttempts, backoff_base_ms: h.retry.backoffBaseMs, next_backoff_ms: h.retry.nextBackoffMs, next_retry_at: h.retry.nextRetryAt } })),
      });
    const job = machine.enqueue('j', 'quote " and \\ name', 1000);
    expect(machine.encodePersistedDetail(job)).toBe(reference(job));
    machine.setRunning(job, 1001);
    machine.updateProgress(job, 10, 'step "one"', 1002);
    expect(machine.encodePersistedDetail(job)).toBe(reference(job));
    machine.updateProgress(job, 20, null, 1003);
    expect(machine.encodePersistedDetail(job)).toBe(reference(job));
    machine.fail(job, 'exited with code 1', 1004);
    expect(machine.encodePersistedDetail(job)).toBe(reference(job));
    for (let i = 0; i < 70; i += 1) {
      if (i % 2 === 0) machine.pause(job, null, 2000 + i);
      else machine.resume(job, null, 2000 + i);
      expect(machine.encodePersistedDetail(job)).toBe(reference(job));
    }
    expect(job.history).toHaveLength(64);
  });

  it('falls back to the row when the detail is unreadable or has no known status', () => {
    for (const detail of ['{not json', JSON.stringify({ schema_version: 1, status: 'exploded' }), '42']) {
      const job = machine.fromStored({ id: 'job-1', name: 'x', status: 'paused', progress: 12, detail, createdAt: T0, updatedAt: T0 });
      expect(job).toMatchObject({ status: 'paused', progress: 12, detail, history: [] });
      expect(job.retry).toEqual(machine.defaultRetry());
    }
  });

  it('reads a detail missing retry fields with their defaults and skips unreadable history entries', () => {
    const detail = JSON.stringify({ status: 'failed', retry: { attempt: 2 }, history: [{ status: 'bogus' }, { status: 'queued', phase: 'created', at: 5 }] });
    const job = machine.fromStored({ id: 'j', name: 'x', status: 'queued', progress: null, detail, createdAt: T0, updatedAt: T0 });
    expect(job.retry).toEqual({ attempt: 2, maxAttempts: 3, backoffBaseMs: 500, nextBackoffMs: 0, nextRetryAt: null });
    expect(job.history).toHaveLength(1);
    expect(job.history[0]).toMatchObject({ phase: 'created', at: 5, progress: null });
  });
});
