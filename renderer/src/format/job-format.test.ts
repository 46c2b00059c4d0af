import { describe, expect, it } from 'vitest';
import type { Job } from '../../../shared/protocol/index.js';
import type { JobHistoryEntry } from '../../../shared/protocol/index.js';
import { attemptLabel, currentDetail, etaLabel, formatDuration, jobDurationMs, jobStatusLine, retryCountdown } from './job-format.js';

const job = (over: Partial<Job>): Job => ({
  id: 'job-1', kind: 'command', name: 'x', status: 'running', progress: null, detail: null, attempt: 0, maxAttempts: 3, maxRuns: 4, rerunIfLost: false,
  nextRetryAt: null, exitCode: null, threadId: null, scheduleId: null, scheduleNotify: null, createdAt: 0, updatedAt: 1_000, command: 'x', cwd: '/', runs: 1,
  activeMs: 5_000, etaMs: null, agent: null, ...over,
});

describe('job labels', () => {
  it('formats durations compactly', () => {
    expect(formatDuration(44_600)).toBe('45 s');
    expect(formatDuration(185_000)).toBe('3 m 05 s');
    expect(formatDuration(7_440_000)).toBe('2 h 04 m');
  });

  it('counts running time only while running, and the ETA down from the estimate', () => {
    expect(jobDurationMs(job({}), 3_000)).toBe(7_000);
    expect(jobDurationMs(job({ status: 'paused' }), 3_000)).toBe(5_000);
    expect(etaLabel(job({ etaMs: 60_000 }), 11_000)).toBe('~50 s left');
    expect(etaLabel(job({ etaMs: 60_000, status: 'paused' }), 11_000)).toBeNull();
  });

  it('shows the retry countdown', () => {
    expect(retryCountdown(job({ status: 'failed', nextRetryAt: 10_000 }), 6_000)).toBe('retry in 4 s');
    expect(retryCountdown(job({ status: 'failed' }), 6_000)).toBeNull();
  });

  it('says which attempt it is on and at most how many there can be', () => {
    // maxAttempts counts retries (seed 000): three retries make at most four attempts.
    expect(attemptLabel(job({ status: 'queued', runs: 0 }))).toBe('attempt 1 (of at most 4)');
    expect(attemptLabel(job({ runs: 1, attempt: 0 }))).toBe('attempt 1 (of at most 4)');
    // Run 1 failed (a retry used), run 2 is scheduled, then runs.
    expect(attemptLabel(job({ status: 'failed', runs: 1, attempt: 1, nextRetryAt: 5 }))).toBe('attempt 2 (of at most 4)');
    expect(attemptLabel(job({ runs: 2, attempt: 1 }))).toBe('attempt 2 (of at most 4)');
    expect(attemptLabel(job({ runs: 4, attempt: 3 }))).toBe('attempt 4 (of at most 4)');
    // A retry the person asked for after the last one: there may be more attempts than planned.
    expect(attemptLabel(job({ status: 'queued', runs: 4, attempt: 3 }))).toBe('attempt 5 (of at most 5)');
    expect(attemptLabel(job({ status: 'completed', runs: 2, attempt: 1 }))).toBe('2 attempts');
    expect(attemptLabel(job({ status: 'failed', runs: 1, attempt: 3 }))).toBe('1 attempt');
    expect(attemptLabel(job({ status: 'cancelled', runs: 0 }))).toBe('never ran');
    // A manual retry adds a run without using up an automatic one; with no retries there is nothing to count up to.
    expect(attemptLabel(job({ runs: 3, attempt: 1, maxRuns: 5 }))).toBe('attempt 3 (of at most 5)');
    expect(attemptLabel(job({ runs: 1, maxAttempts: 0, maxRuns: 1 }))).toBe('attempt 1');
  });

  it('leaves out a detail carried over from before the job entered its current state', () => {
    const entry = (status: JobHistoryEntry['status'], detail: string | null, phase: string = status): JobHistoryEntry => ({
      at: 0, phase, status, progress: null, detail, retry: { attempt: 0, maxAttempts: 3, backoffBaseMs: 500, nextBackoffMs: 0, nextRetryAt: null },
    });
    const stale = 'cancelled (ended by SIGTERM)';
    const retried = [entry('queued', null, 'created'), entry('running', null), entry('cancelled', stale), entry('queued', stale, 'retry_requested')];
    expect(currentDetail(job({ status: 'queued', detail: stale }), retried)).toBeNull();
    expect(currentDetail(job({ detail: stale }), [...retried, entry('running', stale)])).toBeNull();
    // An automatic retry's note belongs to its wait in the queue, not to the run that follows.
    const automatic = [entry('running', null), entry('failed', 'exited with code 3'), entry('queued', 'retry 1 of 3', 'retrying')];
    expect(currentDetail(job({ status: 'queued', detail: 'retry 1 of 3' }), automatic)).toBe('retry 1 of 3');
    expect(currentDetail(job({ detail: 'retry 1 of 3' }), [...automatic, entry('running', 'retry 1 of 3')])).toBeNull();
    // Set on entering the state, or while in it: about now.
    expect(currentDetail(job({ status: 'paused', detail: 'paused before it started' }), [entry('queued', null, 'created'), entry('paused', 'paused before it started')])).toBe('paused before it started');
    expect(currentDetail(job({ detail: 'turn 3' }), [entry('queued', null), entry('running', null), entry('running', 'turn 3', 'progress_updated')])).toBe('turn 3');
    expect(currentDetail(job({ status: 'queued', detail: 'waiting for approval' }), [entry('queued', 'waiting for approval', 'created')])).toBe('waiting for approval');
    expect(currentDetail(job({ status: 'cancelled', detail: stale }), retried.slice(0, 3))).toBe(stale);
    expect(currentDetail(job({ detail: stale }), undefined)).toBe(stale);
  });

  it('says in one line where the job stands', () => {
    expect(jobStatusLine(job({ runs: 2, attempt: 1 }), null, 0)).toBe('Running attempt 2 (of at most 4)');
    expect(jobStatusLine(job({ status: 'failed', runs: 1, attempt: 1, nextRetryAt: 10_000 }), 'exited with code 2', 6_000)).toBe(
      'Failed; attempt 2 (of at most 4) starts in 4 s · exited with code 2',
    );
    expect(jobStatusLine(job({ status: 'failed', runs: 4, attempt: 3 }), 'exited with code 2', 0)).toBe('Failed after 4 attempts · exited with code 2');
    expect(jobStatusLine(job({ status: 'cancelled', runs: 0 }), null, 0)).toBe('Cancelled before it started');
    expect(jobStatusLine(job({ status: 'completed', runs: 1 }), null, 0)).toBe('Completed in 1 attempt');
  });
});
