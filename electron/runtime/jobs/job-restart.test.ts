import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { killRunsUnder, liveRuns } from '../../../test-support/detached-runs.js';
import { alive, pidsAfter } from '../../../test-support/exec.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { JobTestKit, stitchOutput, useJobKits } from '../../../test-support/job-test-kit.js';
import { ManualClock } from '../../../test-support/manual-clock.js';

/**
 * Jobs across a restart of the runtime, on real processes: quitting with
 * "keep running" and with "stop", a crash-like close, a run killed while
 * nothing watched it, and retries counted as a person would count them.
 */
const { newHome, kit, release } = useJobKits();

/** Quits a runtime with its jobs left running, as the quit dialog's "keep running" does. */
async function quitKeeping(k: JobTestKit): Promise<void> {
  await k.runtime.shutdown({ jobs: 'keep' });
  release(k);
}
/** Appends a line to `marker` when it starts (to count runs), prints lines, waits for `go`, prints more, exits with `code`. */
const script = (marker: string, code: number, extra = '') =>
  `${extra}echo started >> '${marker}'; for i in 1 2 3 4 5; do echo "line $i"; done; while [ ! -e go ]; do sleep 0.05; done; for i in 6 7 8; do echo "line $i"; done; exit ${code}`;
const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
const logLines = (text: string) => [...text.matchAll(/line (\d+)\r\n/g)].map((m) => Number(m[1]));

describe('jobs across a restart', () => {
  it('quit keeping jobs: the run goes on, the next runtime re-attaches it, streams on from where it was and records its exit — one run', async () => {
    const home = newHome();
    const marker = path.join(home, 'starts');
    const first = kit(home);
    const { job } = await first.call('job/create', { kind: 'command', name: 'deploy', command: script(marker, 0), cwd: home, maxAttempts: 0 });
    await first.until('line 5', () => first.output(job.id, 1).includes('line 5'));
    expect(first.runtime.runningJobCount()).toBe(1);
    await quitKeeping(first);
    expect(liveRuns(home)).toHaveLength(1);

    const second = kit(home);
    const read = await second.call('job/read', { jobId: job.id });
    expect(read.job).toMatchObject({ status: 'running', runs: 1, maxRuns: 1 });
    expect(read.history.map((h) => h.phase)).toEqual(['created', 'running', 'reattached']);
    await expect(second.call('job/retry', { jobId: job.id })).rejects.toMatchObject({ code: -32600, data: { status: 'running' } });
    fs.writeFileSync(path.join(home, 'go'), '');
    const done = await second.untilJob(job.id, 'completed', (j) => j.status === 'completed');
    expect(done).toMatchObject({ exitCode: 0, runs: 1, detail: 'exited with code 0' });
    expect(lines(marker)).toEqual(['started']);

    // The second runtime went on exactly where the first stopped: together they sent the log once.
    const log = fs.readFileSync(path.join(home, 'runs', `${job.id}-1`, 'output.log'));
    const sentBefore = first.deltas(job.id, 1);
    const sentAfter = second.deltas(job.id, 1);
    const before = stitchOutput(sentBefore);
    expect(sentAfter[0]?.offset).toBe(before.length);
    expect(Buffer.concat([...sentBefore, ...sentAfter].map((d) => Buffer.from(d.delta))).equals(log)).toBe(true);
    expect(logLines(log.toString())).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('a run that ends while Wheelhouse is not running is recorded with its real exit status, its output streamed once', async () => {
    const home = newHome();
    const first = kit(home);
    const { job } = await first.call('job/create', { kind: 'command', command: script(path.join(home, 'starts'), 5), cwd: home, maxAttempts: 0 });
    await first.until('line 5', () => first.output(job.id, 1).includes('line 5'));
    await quitKeeping(first);
    fs.writeFileSync(path.join(home, 'go'), '');
    await waitUntil(() => liveRuns(home).length === 0, { what: 'the run to end on its own' });

    // Settled while the runtime opened: the first job/read already says how it ended.
    const second = kit(home);
    const { job: failed, history } = await second.call('job/read', { jobId: job.id });
    expect(failed).toMatchObject({ status: 'failed', exitCode: 5, detail: 'exited with code 5', runs: 1, nextRetryAt: null });
    expect(history.map((h) => h.phase)).toEqual(['created', 'running', 'reattached', 'failed']);
    const log = await second.call('job/log', { jobId: job.id });
    expect(log).toMatchObject({ attempt: 1, eof: true });
    expect(logLines(log.data)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(stitchOutput(first.deltas(job.id, 1)).toString()).toBe(log.data.slice(0, log.data.indexOf('line 6')));
  });

  it('a run killed while Wheelhouse is down is lost: it fails, and runs again only if marked safe to and retries are left', async () => {
    const home = newHome();
    const first = kit(home, { jobConcurrency: 3 });
    const starts = (name: string) => path.join(home, `starts-${name}`);
    const create = (name: string, maxAttempts: number, rerunIfLost: boolean) =>
      first.call('job/create', { kind: 'command', name, command: `echo started >> '${starts(name)}'; echo up; sleep 300`, cwd: home, maxAttempts, rerunIfLost }).then((r) => r.job);
    const unsafe = await create('unsafe', 3, false);
    const safe = await create('safe', 1, true);
    const noRetries = await create('no-retries', 0, true);
    expect(safe.rerunIfLost).toBe(true);
    for (const job of [unsafe, safe, noRetries]) await first.until(`${job.name} up`, () => first.output(job.id, 1).includes('up'));
    // What a crash leaves: the runs go on; then something kills them all (a reboot, say).
    first.runtime.close();
    release(first);
    expect(killRunsUnder(home)).toBe(3);

    const second = kit(home);
    const read = async (id: string) => (await second.call('job/read', { jobId: id })).job;
    expect(await read(unsafe.id)).toMatchObject({ status: 'failed', runs: 1, nextRetryAt: null, exitCode: null });
    expect((await read(unsafe.id)).detail).toMatch(/^lost while Wheelhouse was not running.*retry it if running it again from the start is safe$/);
    expect((await read(noRetries.id)).detail).toMatch(/^lost while Wheelhouse was not running/);
    expect(await read(noRetries.id)).toMatchObject({ status: 'failed', nextRetryAt: null });
    const rerun = await second.untilJob(safe.id, 'the safe one running again', (j) => j.status === 'running' && j.runs === 2);
    expect(rerun).toMatchObject({ attempt: 1, maxRuns: 2, detail: null });
    await second.until('run 2 up', () => second.output(safe.id, 2).includes('up'));
    expect(lines(starts('safe'))).toEqual(['started', 'started']);
    expect(lines(starts('unsafe'))).toEqual(['started']);
    expect(lines(starts('no-retries'))).toEqual(['started']);
    expect((await second.call('job/log', { jobId: unsafe.id })).data).toMatch(/up\r\n[\s\S]*this run was lost/);
    await second.call('job/cancel', { jobId: safe.id });
  });

  it('quit stopping jobs: every run is cancelled, stubborn ones too, and nothing is left running', async () => {
    const home = newHome();
    const first = kit(home);
    const plain = (await first.call('job/create', { kind: 'command', command: 'sleep 300 & echo "pid:$!"; wait', cwd: home })).job;
    const stubborn = (await first.call('job/create', { kind: 'command', command: `trap '' TERM HUP; sh -c 'trap "" TERM HUP; sleep 300' & echo "pid:$!"; wait`, cwd: home })).job;
    await first.until('pids', () => pidsAfter(first.output(plain.id), 'pid:').length === 1 && pidsAfter(first.output(stubborn.id), 'pid:').length === 1);
    const pids = [...pidsAfter(first.output(plain.id), 'pid:'), ...pidsAfter(first.output(stubborn.id), 'pid:')];
    await first.runtime.shutdown({ jobs: 'stop' });
    release(first);
    expect(alive(pids)).toEqual([]);
    expect(liveRuns(home)).toEqual([]);

    const second = kit(home);
    for (const job of [plain, stubborn]) {
      expect((await second.call('job/read', { jobId: job.id })).job).toMatchObject({ status: 'cancelled', detail: 'cancelled: stopped when Wheelhouse quit' });
    }
    expect(second.runtime.runningJobCount()).toBe(0);
  });

  it('a paused run stays paused across a restart and goes on when resumed', async () => {
    const home = newHome();
    const first = kit(home);
    const { job } = await first.call('job/create', { kind: 'command', command: script(path.join(home, 'starts'), 0), cwd: home });
    await first.until('line 5', () => first.output(job.id, 1).includes('line 5'));
    await first.call('job/pause', { jobId: job.id });
    await quitKeeping(first);
    fs.writeFileSync(path.join(home, 'go'), '');

    const second = kit(home);
    expect((await second.call('job/read', { jobId: job.id })).job).toMatchObject({ status: 'paused', runs: 1 });
    // Stopped: it cannot have seen `go`.
    expect(second.output(job.id, 1)).not.toContain('line 6');
    await second.call('job/resume', { jobId: job.id });
    const done = await second.untilJob(job.id, 'completed', (j) => j.status === 'completed');
    expect(done).toMatchObject({ runs: 1, exitCode: 0 });
    expect(lines(path.join(home, 'starts'))).toEqual(['started']);
  });

  it('running time and the time limit count the time Wheelhouse was away, once', async () => {
    const clock = new ManualClock();
    const home = newHome();
    const first = kit(home, { jobClock: clock });
    const { job } = await first.call('job/create', { kind: 'command', command: 'echo up; sleep 300', cwd: home, timeoutMs: 12_000, maxAttempts: 0 });
    await first.until('up', () => first.output(job.id, 1).includes('up'));
    clock.advance(10_000);
    expect((await first.call('job/read', { jobId: job.id })).job.activeMs).toBe(10_000);
    await quitKeeping(first);
    clock.advance(1_000);

    const second = kit(home, { jobClock: clock });
    expect((await second.call('job/read', { jobId: job.id })).job).toMatchObject({ status: 'running', activeMs: 11_000 });
    // 1 s of its limit was left at the re-attach: it is ended then.
    const failed = await second.untilJob(job.id, 'timed out', (j) => j.status === 'failed');
    expect(failed).toMatchObject({ detail: 'timed out after 12 s of running time', runs: 1 });
  });

  it('the app died after starting a run but before recording it: the run is found by its folder and followed, not started again', async () => {
    const home = newHome();
    const marker = path.join(home, 'starts');
    const first = kit(home);
    const { job } = await first.call('job/create', { kind: 'command', command: script(marker, 0), cwd: home });
    await first.until('line 5', () => first.output(job.id, 1).includes('line 5'));
    first.runtime.close();
    release(first);
    // Back to what the store held just before the start was recorded: queued, the run's place without its identity.
    const db = new Database(path.join(home, 'state.sqlite'));
    try {
      const { handle } = db.prepare('SELECT handle FROM job_runs WHERE job_id = ?').get(job.id) as { handle: string };
      const { pid: _pid, startTime: _startTime, ...place } = JSON.parse(handle) as Record<string, unknown>;
      db.prepare('UPDATE job_runs SET handle = ? WHERE job_id = ?').run(JSON.stringify(place), job.id);
      db.prepare(`UPDATE jobs SET status = 'queued' WHERE id = ?`).run(job.id);
    } finally {
      db.close();
    }

    const second = kit(home);
    expect((await second.call('job/read', { jobId: job.id })).job).toMatchObject({ status: 'running', runs: 1 });
    fs.writeFileSync(path.join(home, 'go'), '');
    await second.untilJob(job.id, 'completed', (j) => j.status === 'completed' && j.runs === 1);
    expect(lines(marker)).toEqual(['started']);
  });
});

describe('attempts', () => {
  it('a manual retry uses up no automatic retry, and each run starts with a fresh detail', async () => {
    const clock = new ManualClock();
    const home = newHome();
    const k = kit(home, { jobClock: clock });
    const { job } = await k.call('job/create', { kind: 'command', command: 'echo "run"; exit 3', cwd: home, maxAttempts: 1 });
    const first = await k.untilJob(job.id, 'run 1 failed', (j) => j.status === 'failed');
    expect(first).toMatchObject({ runs: 1, attempt: 1, maxRuns: 2, detail: 'exited with code 3' });
    expect(first.nextRetryAt).not.toBeNull();

    // The person retries before the automatic retry: that one is given back, not used.
    const retried = await k.call('job/retry', { jobId: job.id });
    expect(retried.job).toMatchObject({ attempt: 0, maxRuns: 3, nextRetryAt: null });
    const second = await k.untilJob(job.id, 'run 2 failed', (j) => j.status === 'failed' && j.runs === 2);
    expect(second).toMatchObject({ attempt: 1, maxRuns: 3 });
    expect(second.nextRetryAt, 'its automatic retry is still there').not.toBeNull();
    expect(k.updates(job.id).filter((j) => j.status === 'running').map((j) => j.detail)).toEqual([null, null]);

    clock.advance(500);
    const third = await k.untilJob(job.id, 'run 3 failed', (j) => j.status === 'failed' && j.runs === 3);
    expect(third).toMatchObject({ attempt: 1, maxRuns: 3, nextRetryAt: null });
    const { history } = await k.call('job/read', { jobId: job.id });
    expect(history.map((h) => h.phase)).toEqual(['created', 'running', 'failed', 'retry_requested', 'running', 'failed', 'retrying', 'running', 'failed']);
  });

  it('a retry after a cancel shows nothing of the cancelled run while it runs', async () => {
    const home = newHome();
    const k = kit(home);
    const { job } = await k.call('job/create', { kind: 'command', command: 'echo up; sleep 300', cwd: home });
    await k.until('up', () => k.output(job.id, 1).includes('up'));
    const cancelled = await k.call('job/cancel', { jobId: job.id });
    expect(cancelled.job.detail).toMatch(/^cancelled; it was asked to stop \(SIGTERM\)/);
    await k.call('job/retry', { jobId: job.id });
    const running = await k.untilJob(job.id, 'run 2 running', (j) => j.status === 'running' && j.runs === 2);
    expect(running).toMatchObject({ detail: null, exitCode: null, attempt: 0, maxRuns: 5 });
    await k.call('job/cancel', { jobId: job.id });
  });
});
