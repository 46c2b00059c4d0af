import { describe, expect, it } from 'vitest';
import type { Job } from '../../../shared/protocol/index.js';
import { attemptLabel, etaLabel, formatDuration, jobDurationMs, retryCountdown } from './job-format.js';

const job = (over: Partial<Job>): Job => ({
  id: 'job-1', kind: 'command', name: 'x', status: 'running', progress: null, detail: null, attempt: 0, maxAttempts: 3, maxRuns: 4, rerunIfLost: false,
  nextRetryAt: null, exitCode: null, threadId: null, createdAt: 0, updatedAt: 1_000, command: 'x', cwd: '/', runs: 1,
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

  it('shows the retry countdown and which attempt of at most how many', () => {
    expect(retryCountdown(job({ status: 'failed', nextRetryAt: 10_000 }), 6_000)).toBe('retry in 4 s');
    expect(retryCountdown(job({ status: 'failed' }), 6_000)).toBeNull();
    expect(attemptLabel(job({ runs: 2, attempt: 1 }))).toBe('attempt 2 (of at most 4)');
    // A manual retry adds a run without using up an automatic one; with no retries there is nothing to count up to.
    expect(attemptLabel(job({ runs: 3, attempt: 1, maxRuns: 5 }))).toBe('attempt 3 (of at most 5)');
    expect(attemptLabel(job({ runs: 1, maxAttempts: 0, maxRuns: 1 }))).toBe('attempt 1');
  });
});
