import { describe, expect, it } from 'vitest';
import type { Job, JobAgent } from '../../../shared/protocol/index.js';
import { budgetLabel, jobStatusLabel, jobSubject } from './agent-job-format.js';

const agent = (over: Partial<JobAgent> = {}): JobAgent => ({
  objective: 'Make the tests pass', goalStatus: 'active', tokenBudget: 10_000, tokensUsed: 1_234, timeBudgetMs: null, timeUsedMs: 65_000,
  approvalPolicy: 'on-request', sandbox: null, allowCommands: [], turns: 2, waitingApproval: null, ...over,
});
const job = (over: Partial<Job>): Job => ({
  id: 'job-1', kind: 'agent', name: 'x', status: 'running', progress: null, detail: null, attempt: 0, maxAttempts: 3, maxRuns: 4, rerunIfLost: false, nextRetryAt: null,
  exitCode: null, threadId: 't1', scheduleId: null, scheduleNotify: null, createdAt: 0, updatedAt: 0, command: null, cwd: '/', runs: 1, activeMs: 0, etaMs: null, agent: agent(), ...over,
});

describe('agent job labels', () => {
  it('show the budget used against the budget', () => {
    expect(budgetLabel(agent())).toBe('1,234 of 10,000 tokens');
    expect(budgetLabel(agent({ tokenBudget: null, timeBudgetMs: 600_000 }))).toBe('1,234 tokens · 1 m 05 s of 10 m 00 s');
  });

  it('say "Waiting for approval" only while a running job waits', () => {
    expect(jobStatusLabel(job({}))).toBe('Running');
    expect(jobStatusLabel(job({ agent: agent({ waitingApproval: { requestId: 'r', command: 'rm -rf build' } }) }))).toBe('Waiting for approval');
    expect(jobStatusLabel(job({ status: 'paused', agent: agent({ waitingApproval: { requestId: 'r', command: null } }) }))).toBe('Paused');
    expect(jobSubject(job({}))).toBe('Make the tests pass');
    expect(jobSubject(job({ kind: 'command', command: 'make', agent: null }))).toBe('make');
  });
});
