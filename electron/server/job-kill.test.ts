import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Job } from '../../shared/protocol/index.js';
import { startAppServer, type AppServerProcess } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import type { Received } from '../../test-support/message-inbox.js';
import { TempDirs } from '../../test-support/temp-dir.js';

/**
 * Kill -9 the host mid-job: the built `wheelhouse app-server`, a real shell in
 * a real pty printing lines, SIGKILL, a fresh process on the same home.
 */
const temp = new TempDirs();
afterEach(async () => {
  await killAllChildren();
  temp.cleanup();
});

const deltaOf = (r: Received) =>
  r.kind === 'notification' && r.message.method === 'job/output/delta' ? (r.message.params as { jobId: string; attempt: number; delta: string }) : null;
const isDelta = (jobId: string, attempt?: number) => (r: Received) => {
  const delta = deltaOf(r);
  return delta !== null && delta.jobId === jobId && (attempt === undefined || delta.attempt === attempt);
};

describe('a job when its host is killed with SIGKILL', () => {
  it('is not lost: it shows it was interrupted, is re-queued, and its log up to the kill is intact', async () => {
    const home = temp.make('wheelhouse-job-kill-');
    let app: AppServerProcess = startAppServer(home);
    await app.peer.initialize();
    const { job } = await app.peer.call('job/create', {
      kind: 'command',
      name: 'counter',
      command: 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); echo "line $i"; sleep 0.01; done',
      cwd: home,
    });
    const { job: finished } = await app.peer.call('job/create', { kind: 'command', name: 'quick', command: 'echo quick-done', cwd: home });

    // Everything the client was shown before the kill.
    let seen = '';
    while (!/line 30\r?\n/.test(seen)) {
      const delta = await app.peer.inbox.take(isDelta(job.id), 'output of the counter job');
      seen += deltaOf(delta)!.delta;
    }
    await app.peer.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'job/updated' && Job.parse((r.message.params as { job: unknown }).job).id === finished.id && (r.message.params as { job: Job }).job.status === 'completed',
      'the quick job completed',
    );
    app.process.child.kill('SIGKILL');
    expect((await app.exited).signal).toBe('SIGKILL');

    app = startAppServer(home);
    await app.peer.initialize();
    const { job: after, history } = await app.peer.call('job/read', { jobId: job.id });
    expect(['queued', 'running']).toContain(after.status);
    const requeued = history.find((h) => h.phase === 'queued_after_resume');
    expect(requeued, JSON.stringify(history)).toBeDefined();
    expect(requeued!.detail).toMatch(/interrupted: Wheelhouse stopped during run 1/);
    expect((await app.peer.call('job/read', { jobId: finished.id })).job).toMatchObject({ status: 'completed', exitCode: 0 });
    expect((await app.peer.call('job/list', {})).data.map((j) => j.id).sort()).toEqual([job.id, finished.id].sort());

    const log = await app.peer.call('job/log', { jobId: job.id, attempt: 1, limit: 1024 * 1024 });
    // Every byte shown before the kill is in the log, in order, then the interruption marker.
    expect(log.data.startsWith(seen), 'the log starts with what the client saw').toBe(true);
    expect(log.data).toMatch(/line \d+\r?\n[\s\S]*this run was interrupted/);
    const lines = [...log.data.matchAll(/line (\d+)\r?\n/g)].map((m) => Number(m[1]));
    expect(lines).toEqual(lines.map((_, i) => i + 1));

    // It runs again, as run 2, and can be cancelled.
    await app.peer.inbox.take(isDelta(job.id, 2), 'run 2 output');
    const { job: cancelled } = await app.peer.call('job/cancel', { jobId: job.id });
    expect(cancelled.status).toBe('cancelled');
    app.endInput();
    expect((await app.exited).code, app.process.stderr()).toBe(0);

    const db = new Database(path.join(home, 'state.sqlite'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  }, 90_000);
});
