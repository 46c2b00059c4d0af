import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcError } from '../../../shared/protocol/index.js';
import { alive, pidsAfter, referenceWork } from '../../../test-support/exec.js';
import { expectNoRunsLeft } from '../../../test-support/detached-runs.js';
import { JobTestKit } from '../../../test-support/job-test-kit.js';
import { ManualClock } from '../../../test-support/manual-clock.js';

/** Real jobs: real shells in real ptys through the supervisor, on a real SQLite file. */
const kits: JobTestKit[] = [];
afterEach(async () => {
  for (const kit of kits.splice(0)) {
    await kit.runtime.shutdown();
    try {
      expectNoRunsLeft(kit.home);
    } finally {
      fs.rmSync(kit.home, { recursive: true, force: true });
    }
  }
});
function kit(options?: ConstructorParameters<typeof JobTestKit>[1]): JobTestKit {
  const k = new JobTestKit(JobTestKit.home(), options);
  kits.push(k);
  return k;
}
const osc = (percent: number) => `printf '\\033]9;4;1;${percent}\\007'`;

describe('command jobs', () => {
  it('runs a command to completion with progress from OSC 9;4 and keeps its output on disk', async () => {
    const k = kit();
    const { job } = await k.call('job/create', { kind: 'command', name: 'osc', command: `echo start; ${osc(25)}; sleep 0.3; ${osc(75)}; sleep 0.3; echo end`, cwd: k.home });
    expect(job).toMatchObject({ name: 'osc', attempt: 0, maxAttempts: 3 });
    // A free slot may start it in the same batch as its creation.
    expect(['queued', 'running']).toContain(job.status);
    const done = await k.untilJob(job.id, 'completed', (j) => j.status === 'completed');
    expect(done).toMatchObject({ progress: 100, exitCode: 0, runs: 1, nextRetryAt: null });
    const progress = k.updates(job.id).map((j) => j.progress);
    expect(progress).toContain(25);
    expect(progress).toContain(75);
    expect(progress.indexOf(25)).toBeLessThan(progress.indexOf(75));
    expect(k.output(job.id, 1)).toMatch(/start[\s\S]*end/);
    const log = await k.call('job/log', { jobId: job.id });
    expect(log).toMatchObject({ attempt: 1, offset: 0, eof: true });
    expect(log.data).toMatch(/start[\s\S]*end/);
    const read = await k.call('job/read', { jobId: job.id });
    expect(read.history.map((h) => h.phase)).toEqual(['created', 'running', 'progress_updated', 'completed']);
    expect(read.logTail).toContain('end');
  });

  it('reads percentages and n/m counts from the output only when asked, else stays indeterminate', async () => {
    const k = kit();
    const command = 'echo "step 3/10"; sleep 0.3; echo "at 50%"; sleep 0.3';
    const { job: parsed } = await k.call('job/create', { kind: 'command', command, cwd: k.home, progressFromOutput: true });
    const { job: plain } = await k.call('job/create', { kind: 'command', command, cwd: k.home });
    await k.untilJob(parsed.id, 'parsed done', (j) => j.status === 'completed');
    await k.untilJob(plain.id, 'plain done', (j) => j.status === 'completed');
    const seen = k.updates(parsed.id).map((j) => j.progress);
    expect(seen).toContain(30);
    expect(seen).toContain(50);
    const running = k.updates(plain.id).filter((j) => j.status === 'running');
    expect(running.length).toBeGreaterThan(0);
    expect(running.every((j) => j.progress === null)).toBe(true);
  });

  it('pause stops the output and the clock; resume starts both again', async () => {
    const k = kit();
    const { job } = await k.call('job/create', { kind: 'command', command: 'i=0; while true; do i=$((i+1)); echo tick$i; sleep 0.05; done', cwd: k.home });
    await k.until('tick3', () => k.output(job.id).includes('tick3'));
    const paused = await k.call('job/pause', { jobId: job.id });
    expect(paused.job.status).toBe('paused');
    // What it printed just before it stopped may still be on its way; it has arrived once another process
    // has run ten rounds of 50 ms. After that nothing more may arrive while that process runs ten more.
    await referenceWork(k.runtime.services.supervisor, k.home, 10);
    const frozenAt = k.output(job.id).length;
    await referenceWork(k.runtime.services.supervisor, k.home, 10);
    expect(k.output(job.id).length).toBe(frozenAt);
    const stillPaused = (await k.call('job/read', { jobId: job.id })).job;
    expect(stillPaused.activeMs).toBe(paused.job.activeMs);
    const resumed = await k.call('job/resume', { jobId: job.id });
    expect(resumed.job.status).toBe('running');
    await k.until('output after resume', () => k.output(job.id).length > frozenAt + 10);
    const cancelled = await k.call('job/cancel', { jobId: job.id });
    expect(cancelled.job.status).toBe('cancelled');
    const phases = (await k.call('job/read', { jobId: job.id })).history.map((h) => h.phase);
    expect(phases).toEqual(['created', 'running', 'paused', 'resumed', 'cancelled']);
  });

  it('cancel ends the whole tree, grandchildren included', async () => {
    const k = kit();
    const command = '(sleep 300 & echo grand:$!; wait) & echo child:$!; sleep 300';
    const { job } = await k.call('job/create', { kind: 'command', command, cwd: k.home });
    await k.until('pids', () => /grand:\d+/.test(k.output(job.id)) && /child:\d+/.test(k.output(job.id)));
    const pids = [...pidsAfter(k.output(job.id), 'grand:'), ...pidsAfter(k.output(job.id), 'child:')];
    expect(alive(pids)).toEqual(pids);
    const { job: cancelled } = await k.call('job/cancel', { jobId: job.id });
    expect(cancelled).toMatchObject({ status: 'cancelled', nextRetryAt: null });
    expect(alive(pids)).toEqual([]);
  });

  it('a job over its time limit is ended and fails, saying so', async () => {
    const k = kit();
    const { job } = await k.call('job/create', { kind: 'command', command: 'echo started; sleep 30', cwd: k.home, timeoutMs: 400, maxAttempts: 0 });
    const failed = await k.untilJob(job.id, 'timed out', (j) => j.status === 'failed');
    expect(failed).toMatchObject({ detail: 'timed out after 400 ms of running time', nextRetryAt: null, attempt: 0 });
  });

  it('runs queued jobs in order, no more at once than the limit', async () => {
    const k = kit({ jobConcurrency: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await k.call('job/create', { kind: 'command', command: `sleep 0.1; echo job${i}`, cwd: k.home })).job.id);
    await k.until('all done', () => ids.every((id) => k.updates(id).some((j) => j.status === 'completed')));
    const starts = k.notifications.flatMap((n) => (n.method === 'job/updated' && n.params.job.status === 'running' ? [n.params.job.id] : []));
    expect([...new Set(starts)]).toEqual(ids);
    let running = 0;
    let most = 0;
    const state = new Map<string, string>();
    for (const n of k.notifications) {
      if (n.method !== 'job/updated') continue;
      state.set(n.params.job.id, n.params.job.status);
      running = [...state.values()].filter((s) => s === 'running').length;
      most = Math.max(most, running);
    }
    expect(most).toBe(1);
  });

  it('commits one job at most ~20 times a second however fast it prints progress', async () => {
    const k = kit();
    // Bursts of 300 progress updates with short pauses: the job lasts ~1 s on any machine, printing as fast as it can.
    const command =
      'for b in $(seq 1 20); do i=0; while [ $i -lt 300 ]; do i=$((i+1)); printf "\\033]9;4;1;%d\\007line %d\\n" $(((b * 300 + i) % 100)) $i; done; sleep 0.05; done';
    const { job } = await k.call('job/create', { kind: 'command', command, cwd: k.home });
    const started = performance.now();
    await k.untilJob(job.id, 'completed', (j) => j.status === 'completed');
    const seconds = (performance.now() - started) / 1000;
    const commits = k.updates(job.id).length;
    expect(commits).toBeGreaterThan(2);
    expect(commits).toBeLessThanOrEqual(Math.ceil(seconds * 20) + 4);
  });

  it('answers bad requests with typed errors and changes nothing', async () => {
    const k = kit();
    const missing = await k.call('job/resume', { jobId: 'job-nope' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(RpcError);
    expect(missing).toMatchObject({ code: -32600, message: expect.stringContaining('job-nope') });
    const { job } = await k.call('job/create', { kind: 'command', command: 'true', cwd: k.home });
    const done = await k.untilJob(job.id, 'completed', (j) => j.status === 'completed');
    const before = k.notifications.length;
    for (const action of ['job/resume', 'job/pause', 'job/cancel', 'job/retry'] as const) {
      const error = await k.call(action, { jobId: job.id }).catch((e: unknown) => e);
      expect(error, action).toMatchObject({ code: -32600, data: { jobId: job.id, status: 'completed' } });
    }
    expect(k.notifications.length).toBe(before);
    expect((await k.call('job/read', { jobId: job.id })).job).toEqual(done);
    await expect(k.call('job/create', { kind: 'command', command: 'true', cwd: '/no/such/folder' })).rejects.toMatchObject({ code: -32602 });
    await expect(k.call('job/create', { kind: 'command', command: '   ', cwd: k.home })).rejects.toMatchObject({ code: -32602 });
    await expect(k.call('job/create', { kind: 'agent', cwd: k.home, objective: '  ' })).rejects.toMatchObject({ code: -32602 });
    await expect(k.call('job/create', { kind: 'agent', cwd: k.home, objective: 'x', approvalPolicy: 'sometimes' } as never)).rejects.toMatchObject({ code: -32602 });
    expect((await k.call('job/list', {})).data.map((j) => j.id)).toEqual([job.id]);
    await expect(k.call('job/delete', { jobId: job.id })).resolves.toEqual({ deleted: true });
    await expect(k.call('job/read', { jobId: job.id })).rejects.toMatchObject({ code: -32600 });
  });

  it('lists newest-updated first, filters by status and search, and pages with a cursor', async () => {
    const clock = new ManualClock();
    const k = kit({ jobConcurrency: 0, jobClock: clock });
    for (let i = 0; i < 5; i += 1) {
      await k.call('job/create', { kind: 'command', name: `build ${i}`, command: `make target${i}`, cwd: k.home });
      clock.advance(1);
    }
    const { job: other } = await k.call('job/create', { kind: 'command', name: 'deploy', command: 'rsync', cwd: k.home });
    clock.advance(1);
    await k.call('job/pause', { jobId: other.id });
    const all = await k.call('job/list', { limit: 4 });
    expect(all.data).toHaveLength(4);
    expect(all.data[0]!.id).toBe(other.id);
    const rest = await k.call('job/list', { limit: 4, cursor: all.nextCursor });
    expect(rest.data).toHaveLength(2);
    expect(rest.nextCursor).toBeNull();
    const ordered = [...all.data, ...rest.data];
    expect(ordered.map((j) => j.updatedAt)).toEqual([...ordered.map((j) => j.updatedAt)].sort((a, b) => b - a));
    expect((await k.call('job/list', { status: 'paused' })).data.map((j) => j.id)).toEqual([other.id]);
    expect((await k.call('job/list', { search: 'TARGET3' })).data.map((j) => j.name)).toEqual(['build 3']);
    await expect(k.call('job/list', { cursor: 'garbage' })).rejects.toMatchObject({ code: -32602 });
  });
});
