import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JobTestKit, useJobKits } from '../../../test-support/job-test-kit.js';

/** A job waiting for approval across a restart: the job, not pending_approvals, is the record of the question. */
const jobKits = useJobKits();

function promptingHome(): string {
  const home = jobKits.newHome();
  fs.mkdirSync(path.join(home, 'rules'));
  fs.writeFileSync(path.join(home, 'rules', 'ask.rules'), 'prefix_rule(pattern = ["touch"], decision = "prompt", justification = "ask first")\n');
  return home;
}

function kit(home: string, jobConcurrency?: number): JobTestKit {
  return jobKits.kit(home, jobConcurrency === undefined ? {} : { jobConcurrency });
}

describe('command job approvals', () => {
  it('a job still waiting when Wheelhouse stops asks again after the restart; once approved it is not asked about again, also after another restart', async () => {
    const home = promptingHome();
    const first = kit(home);
    const { job } = await first.call('job/create', { kind: 'command', command: 'touch after-restart.txt', cwd: home });
    expect(job).toMatchObject({ status: 'queued', detail: 'waiting for approval' });
    await first.until('the request', () => first.runtime.approvals.list().length === 1);
    await first.runtime.shutdown();
    jobKits.release(first);
    expect(fs.existsSync(path.join(home, 'after-restart.txt'))).toBe(false);

    // No free slot in the second run: approved, the job waits its turn.
    const second = kit(home, 0);
    const [request] = await second.until('the request asked again', () => (second.runtime.approvals.list().length === 1 ? second.runtime.approvals.list() : null));
    expect(request!.params).toMatchObject({ itemId: job.id, threadId: job.id, command: 'touch after-restart.txt', reason: expect.stringContaining('ask first') });
    expect((await second.call('job/read', { jobId: job.id })).job).toMatchObject({ status: 'queued', detail: 'waiting for approval' });
    await second.call('approval/answer', { requestId: request!.requestId, decision: 'accept' });
    await second.untilJob(job.id, 'the job approved', (j) => j.status === 'queued' && j.detail === null);
    await second.runtime.shutdown();
    jobKits.release(second);
    expect(fs.existsSync(path.join(home, 'after-restart.txt'))).toBe(false);

    // The approval was stored with the job: the next start runs it without asking again.
    const third = kit(home);
    await third.untilJob(job.id, 'the job completed', (j) => j.status === 'completed');
    expect(fs.existsSync(path.join(home, 'after-restart.txt'))).toBe(true);
    expect(third.runtime.approvals.list()).toEqual([]);
  });
});
