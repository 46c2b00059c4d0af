import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Job } from '../../shared/protocol/index.js';
import { startAppServer } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { expectNoRunsLeft, liveRuns } from '../../test-support/detached-runs.js';
import type { ProtocolPeer } from '../../test-support/protocol-peer.js';
import { startServe } from '../../test-support/serve-process.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { connectWs } from '../../test-support/ws-peer.js';

/** What `wheelhouse serve` and `app-server` do with running jobs when they are stopped. */
const temp = new TempDirs();
const homes: string[] = [];
afterEach(async () => {
  await killAllChildren();
  try {
    for (const home of homes) expectNoRunsLeft(home);
  } finally {
    homes.length = 0;
    temp.cleanup();
  }
});

function newHome(): string {
  const home = temp.make('wheelhouse-jobs-on-exit-');
  homes.push(home);
  return home;
}

/** Counts its starts, says it is up, runs until `go` exists. */
const UNTIL_GO = 'echo started >> starts; echo up; while [ ! -e go ]; do sleep 0.05; done';

async function startedJob(peer: ProtocolPeer, home: string): Promise<Job> {
  const { job } = await peer.call('job/create', { kind: 'command', command: UNTIL_GO, cwd: home, maxAttempts: 0 });
  await peer.inbox.take(
    (r) => r.kind === 'notification' && r.message.method === 'job/output/delta' && (r.message.params as { jobId: string; delta: string }).jobId === job.id && (r.message.params as { delta: string }).delta.includes('up'),
    'the job up',
    20_000,
  );
  return job;
}

describe('stopping the server with jobs running', () => {
  it('serve: Ctrl+C leaves them running and says so; the next start on the home picks them up', async () => {
    const home = newHome();
    const server = await startServe({ home, keepJobsOnExit: true });
    const { peer } = await connectWs(server.wsUrl);
    await peer.initialize('jobs-on-exit');
    const job = await startedJob(peer, home);

    server.process.child.kill('SIGINT');
    expect((await server.process.exited).code).toBe(0);
    expect(server.stdout()).toContain(`wheelhouse: 1 job keeps running in the background; the next \`wheelhouse serve --home ${home}\` (or the app on this home) picks it up. --stop-jobs-on-exit stops them instead.`);
    expect(liveRuns(home)).toHaveLength(1);

    const app = startAppServer(home);
    await app.peer.initialize();
    expect((await app.peer.call('job/read', { jobId: job.id })).job).toMatchObject({ status: 'running', runs: 1 });
    fs.writeFileSync(path.join(home, 'go'), '');
    await app.peer.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'job/updated' && (r.message.params as { job: Job }).job.id === job.id && (r.message.params as { job: Job }).job.status === 'completed',
      'the job completed',
      20_000,
    );
    expect(fs.readFileSync(path.join(home, 'starts'), 'utf8')).toBe('started\n');
    app.endInput();
    expect((await app.exited).code).toBe(0);
  });

  it('app-server --stop-jobs-on-exit: the end of input stops them, nothing is left running, and they stay cancelled', async () => {
    const home = newHome();
    const app = startAppServer(home);
    await app.peer.initialize();
    const job = await startedJob(app.peer, home);
    app.endInput();
    expect((await app.exited).code).toBe(0);
    expect(app.process.stderr()).toContain('wheelhouse: stopping 1 job (--stop-jobs-on-exit)…');
    expect(liveRuns(home)).toEqual([]);

    const again = startAppServer(home);
    await again.peer.initialize();
    expect((await again.peer.call('job/read', { jobId: job.id })).job).toMatchObject({ status: 'cancelled', detail: 'cancelled: stopped when Wheelhouse quit' });
    again.endInput();
    expect((await again.exited).code).toBe(0);
  });
});
