import { describe, expect, it } from 'vitest';
import type { JobCreateParams } from '../../../shared/protocol/index.js';
import { jobTemplateErrors, jobTemplateFormOf, jobTemplateParams } from './job-form.js';

describe('a job template in a form', () => {
  it('an agent job opens with everything it was saved with and saves back the same', () => {
    const saved: JobCreateParams = {
      kind: 'agent',
      name: 'Morning triage',
      cwd: '/work/repo',
      objective: 'Label the new issues',
      tokenBudget: 20_000,
      timeBudgetMs: 15 * 60_000,
      approvalPolicy: 'never',
      sandbox: 'read-only',
      allowCommands: ['gh issue list', 'gh issue edit'],
      maxAttempts: 1,
      maxTurns: 5,
    };
    const form = jobTemplateFormOf(saved);
    expect(Object.values(jobTemplateErrors(form)).every((e) => e === null)).toBe(true);
    expect(jobTemplateParams(form, 'Morning triage', saved)).toEqual(saved);
  });

  it('a command keeps the environment the form does not show; a bad field is named', () => {
    const saved: JobCreateParams = { kind: 'command', name: 'Nightly', cwd: '/work/repo', command: 'make', env: { CI: '1' }, maxAttempts: 0, timeoutMs: 30 * 60_000, progressFromOutput: false, rerunIfLost: true };
    const form = jobTemplateFormOf(saved);
    expect(jobTemplateParams({ ...form, command: 'make all' }, 'Nightly', saved)).toEqual({ ...saved, command: 'make all' });
    expect(jobTemplateErrors({ ...form, retries: 'x', timeoutMinutes: '0' })).toMatchObject({ retries: 'A whole number from 0 to 100.', timeout: expect.stringMatching(/minutes/) });
    expect(jobTemplateErrors({ ...form, kind: 'agent' })).toMatchObject({ objective: 'Say what the agent should achieve.' });
  });
});
