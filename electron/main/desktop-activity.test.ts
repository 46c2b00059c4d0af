import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Notice } from '../../shared/notices.js';
import { JobTestKit } from '../../test-support/job-test-kit.js';
import { ManualClock } from '../../test-support/manual-clock.js';
import { waitUntil } from '../../test-support/waiting.js';
import { DesktopActivity, type ActivityCounts } from './desktop-activity.js';
import { jobsWithStatus } from './desktop-services.js';

/** The shell's activity fed from a real runtime's live events and approvals, as main.ts wires it. */
const kits: JobTestKit[] = [];
const homes: string[] = [];
afterEach(async () => {
  for (const kit of kits.splice(0)) await kit.runtime.shutdown();
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

function watch(clock = new ManualClock()) {
  const home = JobTestKit.home();
  homes.push(home);
  const kit = new JobTestKit(home, { jobClock: clock });
  kits.push(kit);
  const notices: Notice[] = [];
  const withdrawn: string[] = [];
  const counts: ActivityCounts[] = [];
  const activity = new DesktopActivity({
    onNotice: (notice) => notices.push(notice),
    onWithdrawn: (tag) => withdrawn.push(tag),
    onCounts: (next) => counts.push(next),
  });
  activity.seed(jobsWithStatus(kit.runtime, ['queued', 'running', 'paused', 'failed']));
  kit.runtime.events.subscribe((notification) => {
    if (notification.method === 'job/updated') activity.jobUpdated(notification.params.job);
    else if (notification.method === 'job/deleted') activity.jobDeleted(notification.params.jobId);
  });
  kit.runtime.approvals.watch((pending, signal) => activity.approvalWaiting(pending, signal));
  return { kit, clock, home, activity, notices, withdrawn, counts };
}

describe("the desktop shell's view of the runtime's activity", () => {
  it('tells once when a job finishes, and counts it as running while it runs', async () => {
    const { kit, home, activity, notices, counts } = watch();
    const { job } = await kit.call('job/create', { kind: 'command', command: 'echo done', cwd: home });
    await kit.untilJob(job.id, 'completed', (j) => j.status === 'completed');
    expect(notices.map((n) => [n.kind, n.title])).toEqual([['jobFinished', 'Finished: echo done']]);
    expect(counts.some((c) => c.runningJobs === 1)).toBe(true);
    expect(activity.counts).toEqual({ runningJobs: 0, waitingApprovals: 0 });
  });

  it('stays quiet through automatic retries and tells once when the job fails for good', async () => {
    const { kit, clock, home, notices } = watch();
    const { job } = await kit.call('job/create', { kind: 'command', command: 'exit 3', cwd: home, maxAttempts: 2 });
    await kit.untilJob(job.id, 'first failure', (j) => j.status === 'failed' && j.runs === 1);
    clock.advance(500);
    await kit.untilJob(job.id, 'second failure', (j) => j.status === 'failed' && j.runs === 2);
    expect(notices).toEqual([]);
    clock.advance(1000);
    await kit.untilJob(job.id, 'last failure', (j) => j.status === 'failed' && j.runs === 3);
    expect(notices.map((n) => [n.kind, n.body])).toEqual([['jobFailed', 'Exited with code 3. It was tried 3 times.']]);
  });

  it('does not announce what was already there when it started watching', async () => {
    const clock = new ManualClock();
    const first = watch(clock);
    const { job } = await first.kit.call('job/create', { kind: 'command', command: 'exit 1', cwd: first.home, maxAttempts: 0 });
    await first.kit.untilJob(job.id, 'failed', (j) => j.status === 'failed');
    expect(first.notices).toHaveLength(1);

    // A fresh shell (a restart of the runtime) seeded with the same jobs: nothing to tell about them,
    // not even when the job's last update reaches it again.
    const again = new DesktopActivity({ onNotice: () => expect.fail('a seeded job was announced'), onWithdrawn: () => undefined, onCounts: () => undefined });
    again.seed(jobsWithStatus(first.kit.runtime, ['queued', 'running', 'paused', 'failed']));
    again.jobUpdated(first.kit.updates(job.id).at(-1)!);
    expect(again.counts).toEqual({ runningJobs: 0, waitingApprovals: 0 });
  });

  it('counts an approval while it waits and withdraws its notice when it is answered', async () => {
    const { kit, activity, notices, withdrawn } = watch();
    const turn = new AbortController();
    const outcome = kit.runtime.approvals.request(
      { store: null, ephemeral: true },
      { threadId: 'thread-1', turnId: 'turn-1', itemId: 'item-1', startedAtMs: Date.now(), command: 'npm test' },
      turn.signal,
    );
    // Announced once the request is in the event log (the end of this turn of the event loop).
    await waitUntil(() => activity.counts.waitingApprovals === 1, { what: 'the approval to be counted' });
    expect(notices).toMatchObject([{ kind: 'approvalNeeded', body: 'npm test', approval: { requestId: 'approval-item-1', canApprove: true } }]);

    kit.runtime.approvals.answer('approval-item-1', 'accept');
    await expect(outcome).resolves.toMatchObject({ kind: 'decided', decision: 'accept' });
    await waitUntil(() => activity.counts.waitingApprovals === 0, { what: 'the answered approval to leave the count' });
    expect(withdrawn).toEqual([notices[0]!.tag]);
  });

  it('forgets everything when the runtime goes away', async () => {
    const { kit, home, activity } = watch();
    const { job } = await kit.call('job/create', { kind: 'command', command: 'sleep 30', cwd: home });
    await kit.untilJob(job.id, 'running', (j) => j.status === 'running');
    expect(activity.counts.runningJobs).toBe(1);
    activity.clear();
    expect(activity.counts.runningJobs).toBe(0);
    await kit.call('job/cancel', { jobId: job.id });
  });
});
