import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { JOB_LOG_LINE_MAX_BYTES } from '../../../shared/protocol/index.js';
import { JobTestKit } from '../../../test-support/job-test-kit.js';

/** job/log/lines, job/log/search and job/runs on real runs (a shell in a pty) and a real SQLite file. */
const kits: JobTestKit[] = [];
afterEach(async () => {
  for (const kit of kits.splice(0)) {
    await kit.runtime.shutdown();
    fs.rmSync(kit.home, { recursive: true, force: true });
  }
});
function kit(): JobTestKit {
  const k = new JobTestKit(JobTestKit.home());
  kits.push(k);
  return k;
}

describe('job log lines', () => {
  it('reads a finished run by line number, from the start, the middle and the end', async () => {
    const k = kit();
    const { job } = await k.call('job/create', { kind: 'command', command: "seq -f 'row %g' 1 3000; printf 'no newline'", cwd: k.home, maxAttempts: 0 });
    await k.untilJob(job.id, 'completed', (j) => j.status === 'completed');

    const head = await k.call('job/log/lines', { jobId: job.id, fromLine: 0, count: 3 });
    expect(head).toMatchObject({ attempt: 1, fromLine: 0, lines: ['row 1', 'row 2', 'row 3'], clipped: [], lineCount: 3001, ended: true });
    expect(head.bytes).toBe((await k.call('job/log', { jobId: job.id, limit: 1 })).size);
    const middle = await k.call('job/log/lines', { jobId: job.id, fromLine: 1499, count: 2 });
    expect(middle.lines).toEqual(['row 1500', 'row 1501']);
    // Without fromLine: the last lines, the unfinished one included.
    const tail = await k.call('job/log/lines', { jobId: job.id, count: 2 });
    expect(tail).toMatchObject({ fromLine: 2999, lines: ['row 3000', 'no newline'] });
    // Asking at the end is not an error: a client following the log asks there.
    expect((await k.call('job/log/lines', { jobId: job.id, fromLine: 3001, count: 10 })).lines).toEqual([]);
  });

  it('refuses a line past the end and an unknown run with typed errors, and an unknown job', async () => {
    const k = kit();
    const { job } = await k.call('job/create', { kind: 'command', command: 'echo one; echo two', cwd: k.home, maxAttempts: 0 });
    await k.untilJob(job.id, 'completed', (j) => j.status === 'completed');
    await expect(k.call('job/log/lines', { jobId: job.id, fromLine: 3, count: 1 })).rejects.toMatchObject({
      code: -32600,
      data: { jobId: job.id, reason: 'job.lineOutOfRange', attempt: 1, fromLine: 3, lineCount: 2 },
    });
    await expect(k.call('job/log/lines', { jobId: job.id, attempt: 2, count: 1 })).rejects.toMatchObject({
      code: -32600,
      data: { jobId: job.id, reason: 'job.runNotFound', attempt: 2, runs: 1 },
    });
    await expect(k.call('job/log/search', { jobId: job.id, attempt: 5, query: 'x' })).rejects.toMatchObject({ data: { reason: 'job.runNotFound' } });
    await expect(k.call('job/log/lines', { jobId: 'job-nope', count: 1 })).rejects.toMatchObject({ code: -32600, data: { jobId: 'job-nope' } });
    await expect(k.call('job/log/lines', { jobId: job.id, count: 0 })).rejects.toMatchObject({ code: -32602 });
    await expect(k.call('job/log/search', { jobId: job.id, query: 'a\nb' })).rejects.toMatchObject({ code: -32602 });
  });

  it('follows a live run: the line count grows and the run says when it has ended', async () => {
    const k = kit();
    const { job } = await k.call('job/create', { kind: 'command', command: 'for i in $(seq 1 400); do echo "tick $i"; sleep 0.01; done', cwd: k.home, maxAttempts: 0 });
    await k.until('some output', () => k.output(job.id).includes('tick 20'));
    const early = await k.call('job/log/lines', { jobId: job.id, count: 5 });
    expect(early.ended).toBe(false);
    expect(early.lineCount).toBeGreaterThanOrEqual(20);
    await k.untilJob(job.id, 'completed', (j) => j.status === 'completed');
    const done = await k.call('job/log/lines', { jobId: job.id, count: 1 });
    expect(done).toMatchObject({ lines: ['tick 400'], lineCount: 400, ended: true });
    expect(done.lineCount).toBeGreaterThan(early.lineCount);
  });

  it('job/log pages never cut a character in two: nextOffset leaves it for the next page', async () => {
    const k = kit();
    const { job } = await k.call('job/create', { kind: 'command', command: "printf 'éé€x'", cwd: k.home, maxAttempts: 0 });
    await k.untilJob(job.id, 'completed', (j) => j.status === 'completed');
    let offset = 0;
    let text = '';
    for (let page = 0; page < 20 && text.length < 4; page += 1) {
      const read = await k.call('job/log', { jobId: job.id, offset, limit: 3 });
      expect(read.data).not.toContain('\ufffd');
      text += read.data;
      offset = read.nextOffset;
    }
    expect(text).toBe('éé€x');
  });

  it('cuts a line longer than the cap and says so', async () => {
    const k = kit();
    const { job } = await k.call('job/create', { kind: 'command', command: `head -c ${JOB_LOG_LINE_MAX_BYTES + 500} /dev/zero | tr '\\0' x; echo; echo after`, cwd: k.home, maxAttempts: 0 });
    await k.untilJob(job.id, 'completed', (j) => j.status === 'completed');
    const { lines, clipped } = await k.call('job/log/lines', { jobId: job.id, fromLine: 0, count: 2 });
    expect(lines[0]).toHaveLength(JOB_LOG_LINE_MAX_BYTES);
    expect(lines[1]).toBe('after');
    expect(clipped).toEqual([0]);
  });

  it('searches a run by what it shows, and lists every run with how it ended', async () => {
    const k = kit();
    const command = `if [ -f marker ]; then seq -f 'second %g' 1 500; printf '\\033[31mFail\\033[0med once\\n'; else touch marker; echo 'first attempt'; exit 4; fi`;
    const { job } = await k.call('job/create', { kind: 'command', command, cwd: k.home, maxAttempts: 1 });
    await k.untilJob(job.id, 'completed on the retry', (j) => j.status === 'completed');

    const { runs } = await k.call('job/runs', { jobId: job.id });
    expect(runs.map((r) => [r.run, r.outcome])).toEqual([
      [1, 'failed'],
      [2, 'completed'],
    ]);
    expect(runs.every((r) => r.bytes > 0 && r.endedAt !== null && r.endedAt >= r.startedAt)).toBe(true);
    expect((await k.call('job/log/lines', { jobId: job.id, attempt: 1, count: 10 })).lines).toEqual(['first attempt']);

    expect(await k.call('job/log/search', { jobId: job.id, query: 'SECOND 499' })).toEqual({ attempt: 2, lines: [498], searchedTo: 501, truncated: false });
    expect((await k.call('job/log/search', { jobId: job.id, query: 'failed once' })).lines).toEqual([500]);
    expect((await k.call('job/log/search', { jobId: job.id, attempt: 1, query: 'attempt' })).lines).toEqual([0]);
    const capped = await k.call('job/log/search', { jobId: job.id, query: 'second', maxMatches: 10 });
    expect(capped).toMatchObject({ lines: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], searchedTo: 10, truncated: true });
  });
});
