import { describe, expect, it } from 'vitest';
import { JobTestKit, useJobKits } from '../../../test-support/job-test-kit.js';
import { ManualClock } from '../../../test-support/manual-clock.js';

/** Retry schedules on a manual clock (time is what is tested); the runs themselves are real processes. */
const jobKits = useJobKits();
const newHome = jobKits.newHome;
function kit(home: string, clock: ManualClock): JobTestKit {
  return jobKits.kit(home, { jobClock: clock });
}

describe('automatic retries', () => {
  it('run 500 ms then 1000 ms after each failure, and stop when none are left', async () => {
    const clock = new ManualClock();
    const home = newHome();
    const k = kit(home, clock);
    const t0 = clock.now();
    const { job } = await k.call('job/create', { kind: 'command', command: 'echo "run failing"; exit 3', cwd: home, maxAttempts: 2 });
    const first = await k.untilJob(job.id, 'first failure', (j) => j.status === 'failed');
    expect(first).toMatchObject({ attempt: 1, maxAttempts: 2, exitCode: 3, nextRetryAt: t0 + 500, runs: 1, detail: 'exited with code 3' });

    clock.advance(499);
    expect((await k.call('job/read', { jobId: job.id })).job).toMatchObject({ status: 'failed', runs: 1 });
    clock.advance(1);
    // The retry's own run says nothing of the run before it: neither its exit nor the countdown.
    const retrying = await k.untilJob(job.id, 'the retry running', (j) => j.status === 'running' && j.runs === 2);
    expect(retrying).toMatchObject({ detail: null, exitCode: null });
    const second = await k.untilJob(job.id, 'second failure', (j) => j.status === 'failed' && j.runs === 2);
    expect(second).toMatchObject({ attempt: 2, nextRetryAt: t0 + 500 + 1000 });

    clock.advance(1000);
    const last = await k.untilJob(job.id, 'third failure', (j) => j.status === 'failed' && j.runs === 3);
    expect(last).toMatchObject({ attempt: 2, nextRetryAt: null });
    expect(clock.pending).toBe(0);

    const { history } = await k.call('job/read', { jobId: job.id });
    expect(history.map((h) => h.phase)).toEqual(['created', 'running', 'failed', 'retrying', 'running', 'failed', 'retrying', 'running', 'failed']);
    for (const attempt of [1, 2, 3]) expect((await k.call('job/log', { jobId: job.id, attempt })).data).toContain('run failing');
    await expect(k.call('job/log', { jobId: job.id, attempt: 4 })).rejects.toMatchObject({ code: -32600 });
  });

  it('are armed again after a restart, and "retry now" runs at once', async () => {
    const clock = new ManualClock();
    const home = newHome();
    const first = kit(home, clock);
    const { job } = await first.call('job/create', { kind: 'command', command: 'exit 1', cwd: home, maxAttempts: 1 });
    await first.untilJob(job.id, 'failed', (j) => j.status === 'failed');
    await first.runtime.shutdown();
    jobKits.release(first);

    const second = kit(home, clock);
    expect(clock.pending).toBe(1);
    clock.advance(500);
    const retried = await second.untilJob(job.id, 'retried after restart', (j) => j.status === 'failed' && j.runs === 2);
    expect(retried).toMatchObject({ attempt: 1, nextRetryAt: null });

    const { job: again } = await second.call('job/retry', { jobId: job.id });
    expect(['queued', 'running']).toContain(again.status);
    await second.untilJob(job.id, 'manual retry ran', (j) => j.status === 'failed' && j.runs === 3);
  });
});
