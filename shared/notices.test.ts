import { describe, expect, it } from 'vitest';
import { approvalNotice, durationWords, isShowing, jobNotice, noticeRoute, type Notice } from './notices.js';
import { DEFAULT_NOTIFICATION_PREFERENCES } from './protocol/methods/config.js';
import type { PendingApproval } from './protocol/methods/approvals.js';
import type { Job } from './protocol/methods/job.js';

function job(patch: Partial<Job> = {}): Job {
  return {
    id: 'job-1',
    kind: 'command',
    name: 'nightly build',
    status: 'running',
    progress: null,
    detail: null,
    attempt: 0,
    maxAttempts: 2,
    maxRuns: 3,
    rerunIfLost: false,
    nextRetryAt: null,
    exitCode: null,
    threadId: null,
    scheduleId: null,
    scheduleNotify: null,
    createdAt: 1,
    updatedAt: 2,
    command: 'make',
    cwd: '/tmp',
    runs: 1,
    activeMs: 185_000,
    etaMs: null,
    agent: null,
    ...patch,
  };
}

function commandApproval(command: string | null, patch: Partial<Extract<PendingApproval, { method: 'item/commandExecution/requestApproval' }>['params']> = {}): PendingApproval {
  return {
    requestId: 'approval-item-1',
    method: 'item/commandExecution/requestApproval',
    params: { threadId: 'thread-1', turnId: 'turn-1', itemId: 'item-1', startedAtMs: 1, command, ...patch },
  };
}

describe('job notices', () => {
  it('tells when a job finishes, once, with how long it ran', () => {
    const notice = jobNotice(job(), job({ status: 'completed', exitCode: 0 }));
    expect(notice).toMatchObject({ kind: 'jobFinished', title: 'Finished: nightly build', body: 'It ran for 3 minutes.', open: { view: 'job', jobId: 'job-1' } });
    expect(jobNotice(job({ status: 'completed' }), job({ status: 'completed', updatedAt: 9 }))).toBeNull();
  });

  it('says nothing for a failure the job retries by itself, and tells when it fails for good', () => {
    const firstFailure = job({ status: 'failed', exitCode: 2, nextRetryAt: 5_000, detail: 'will retry automatically' });
    expect(jobNotice(job(), firstFailure)).toBeNull();
    const retrying = job({ status: 'running', attempt: 2, runs: 3 });
    expect(jobNotice(firstFailure, retrying)).toBeNull();
    const lastFailure = job({ status: 'failed', exitCode: 2, attempt: 2, runs: 3, detail: 'exited with code 2' });
    expect(jobNotice(retrying, lastFailure)).toMatchObject({ kind: 'jobFailed', title: 'Failed: nightly build', body: 'Exited with code 2. It was tried 3 times.' });
    // A later update of the same failed job (its log moved on, say) is not a second failure.
    expect(jobNotice(lastFailure, { ...lastFailure, updatedAt: 99 })).toBeNull();
  });

  it('words a failure without a detail by its exit code', () => {
    expect(jobNotice(job(), job({ status: 'failed', exitCode: 1 }))?.body).toBe('It stopped with exit code 1.');
  });

  it('says nothing for a job the person cancelled, a job seen for the first time, or a pause', () => {
    expect(jobNotice(job(), job({ status: 'cancelled' }))).toBeNull();
    expect(jobNotice(undefined, job({ status: 'completed' }))).toBeNull();
    expect(jobNotice(job(), job({ status: 'paused' }))).toBeNull();
  });

  it('gives each run its own tag, so a retried job that finishes again tells again', () => {
    const first = jobNotice(job(), job({ status: 'completed' }));
    const second = jobNotice(job({ runs: 2 }), job({ status: 'completed', runs: 2 }));
    expect(first?.tag).not.toBe(second?.tag);
  });
});

describe('scheduled runs', () => {
  it('follow their schedule: failures only by default, every run, or never', () => {
    const run = (scheduleNotify: Job['scheduleNotify']) => job({ scheduleId: 'schedule-1', scheduleNotify });
    const finish = (before: Job) => jobNotice(before, { ...before, status: 'completed', updatedAt: 3 });
    const fail = (before: Job) => jobNotice(before, { ...before, status: 'failed', exitCode: 1, nextRetryAt: null, updatedAt: 3 });
    expect(finish(run('failure'))).toBeNull();
    expect(fail(run('failure'))?.kind).toBe('jobFailed');
    expect(finish(run('always'))?.kind).toBe('jobFinished');
    expect(fail(run('always'))?.kind).toBe('jobFailed');
    expect(finish(run('never'))).toBeNull();
    expect(fail(run('never'))).toBeNull();
  });
});

describe('approval notices', () => {
  it('lets a short, one-line command be approved from the notification', () => {
    const notice = approvalNotice(commandApproval('npm test'), 'Fix the login bug');
    expect(notice).toMatchObject({
      kind: 'approvalNeeded',
      title: 'Approve a command? (Fix the login bug)',
      body: 'npm test',
      open: { view: 'thread', threadId: 'thread-1' },
      approval: { requestId: 'approval-item-1', canApprove: true },
    });
  });

  it('asks to open the window for a command too long or too tricky to read there', () => {
    expect(approvalNotice(commandApproval('x'.repeat(121))).approval?.canApprove).toBe(false);
    expect(approvalNotice(commandApproval('echo hi\nrm -rf ~')).approval?.canApprove).toBe(false);
    expect(approvalNotice(commandApproval(null)).approval?.canApprove).toBe(false);
    expect(approvalNotice(commandApproval('ls', { availableDecisions: ['decline', 'cancel'] })).approval?.canApprove).toBe(false);
  });

  it('never approves a patch or a tool call from outside the window', () => {
    const patch: PendingApproval = { requestId: 'approval-p', method: 'item/fileChange/requestApproval', params: { threadId: 't', turnId: 'u', itemId: 'p', startedAtMs: 1 } };
    expect(approvalNotice(patch)).toMatchObject({ title: 'Approve file changes?', approval: { canApprove: false } });
    const tool: PendingApproval = {
      requestId: 'mcp_tool_call_approval_c',
      method: 'mcpServer/elicitation/request',
      itemId: 'c',
      params: { threadId: 't', turnId: 'u', serverName: 'files', mode: 'form', message: 'Allow?', requestedSchema: { type: 'object', properties: {} } },
    };
    expect(approvalNotice(tool)).toMatchObject({ title: 'Approve a tool call?', approval: { canApprove: false } });
    expect(approvalNotice(tool).body).toContain('files');
  });

  it("opens a background job's page for the job's own approval", () => {
    const notice = approvalNotice(commandApproval('make deploy', { threadId: 'job-7', itemId: 'job-7' }));
    expect(notice.open).toEqual({ view: 'job', jobId: 'job-7' });
  });
});

describe('where a notice goes', () => {
  const finished = jobNotice(job(), job({ status: 'completed' })) as Notice;
  const context = { preferences: DEFAULT_NOTIFICATION_PREFERENCES, windowFocused: true, showing: false };

  it('goes to the desktop when the window is not in front, as a toast when it is, nowhere when its subject is on screen', () => {
    expect(noticeRoute(finished, { ...context, windowFocused: false })).toBe('desktop');
    expect(noticeRoute(finished, context)).toBe('toast');
    expect(noticeRoute(finished, { ...context, showing: true })).toBe('none');
  });

  it('goes nowhere when the person turned its kind off', () => {
    expect(noticeRoute(finished, { ...context, windowFocused: false, preferences: { ...DEFAULT_NOTIFICATION_PREFERENCES, jobFinished: false } })).toBe('none');
  });

  it('knows which subject the window shows', () => {
    const none = { threadId: null, jobId: null, approvalsInbox: false };
    expect(isShowing(finished, { ...none, jobId: 'job-1' })).toBe(true);
    expect(isShowing(finished, { ...none, jobId: 'job-2' })).toBe(false);
    const approval = approvalNotice(commandApproval('ls'));
    expect(isShowing(approval, { ...none, threadId: 'thread-1' })).toBe(true);
    expect(isShowing(approval, { ...none, approvalsInbox: true })).toBe(true);
    expect(isShowing(approval, { ...none, threadId: 'thread-2' })).toBe(false);
  });
});

describe('durations in words', () => {
  it('reads like a person would say it', () => {
    expect(durationWords(1_000)).toBe('1 second');
    expect(durationWords(40_000)).toBe('40 seconds');
    expect(durationWords(65 * 60_000)).toBe('1 hour 5 minutes');
    expect(durationWords(120 * 60_000)).toBe('2 hours');
  });
});
