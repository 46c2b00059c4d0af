import { describe, expect, it } from 'vitest';
import type { Job } from '../../../shared/protocol/index.js';
import { allowedActions, matchesJob, resortJobs, sortJobs } from './jobs-store.js';

const job = (id: string, updatedAt: number, over: Partial<Job> = {}): Job => ({
  id, kind: 'command', name: `job ${id}`, status: 'completed', progress: 100, detail: null, attempt: 0, maxAttempts: 3, maxRuns: 4, rerunIfLost: false,
  nextRetryAt: null, exitCode: 0, threadId: null, scheduleId: null, scheduleNotify: null, createdAt: 0, updatedAt, command: `make ${id}`, cwd: '/', runs: 1,
  activeMs: 0, etaMs: null, agent: null, ...over,
});

describe('jobs store helpers', () => {
  it('keeps the list newest-updated first when a few jobs change among many', () => {
    const all = Array.from({ length: 1000 }, (_, i) => job(`j${String(i).padStart(4, '0')}`, i * 10));
    const sorted = sortJobs(all);
    const changed = [job('j0003', 99_999, { status: 'running' }), job('j0500', 5_005), job('new', 7)];
    const next = resortJobs(sorted, changed);
    const byId = new Map(all.map((j) => [j.id, j]));
    for (const c of changed) byId.set(c.id, c);
    expect(next).toEqual(sortJobs(byId.values()));
    expect(next[0]!.id).toBe('j0003');
    expect(next).toHaveLength(1001);
  });

  it('offers only the actions the runtime accepts in each status', () => {
    expect([...allowedActions(job('a', 1, { status: 'running' }))].sort()).toEqual(['cancel', 'pause']);
    expect([...allowedActions(job('a', 1, { status: 'paused' }))].sort()).toEqual(['cancel', 'resume']);
    expect([...allowedActions(job('a', 1, { status: 'failed', nextRetryAt: 5 }))].sort()).toEqual(['cancel', 'delete', 'retry']);
    expect([...allowedActions(job('a', 1, { status: 'failed' }))].sort()).toEqual(['delete', 'retry']);
    expect([...allowedActions(job('a', 1))]).toEqual(['delete']);
  });

  it('filters by status and searches name and command, ignoring case', () => {
    const j = job('x', 1, { name: 'Nightly Build', command: 'npm run e2e', status: 'failed' });
    expect(matchesJob(j, 'failed', 'nightly')).toBe(true);
    expect(matchesJob(j, 'failed', 'E2E')).toBe(true);
    expect(matchesJob(j, 'running', '')).toBe(false);
    expect(matchesJob(j, 'all', 'deploy')).toBe(false);
  });
});
