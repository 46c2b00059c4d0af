import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Job } from '../../shared/protocol/index.js';
import { startAppServer, type AppServerProcess } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { expectNoRunsLeft, liveRuns } from '../../test-support/detached-runs.js';
import { alive, pidsAfter } from '../../test-support/exec.js';
import { waitUntil } from '../../test-support/waiting.js';
import { stitchOutput } from '../../test-support/job-test-kit.js';
import type { Received } from '../../test-support/message-inbox.js';
import { TempDirs } from '../../test-support/temp-dir.js';

/**
 * Kill -9 of the host while jobs run: the built `wheelhouse app-server`, real
 * shells in real terminals (one ignoring SIGHUP), SIGKILL, a fresh process
 * on the same home. The jobs must neither die with the host nor run twice.
 */
const temp = new TempDirs();
let home = '';
afterEach(async () => {
  await killAllChildren();
  try {
    if (home) expectNoRunsLeft(home);
  } finally {
    home = '';
    temp.cleanup();
  }
});

type Delta = { jobId: string; attempt: number; offset: number; delta: string };
const deltaOf = (r: Received): Delta | null =>
  r.kind === 'notification' && r.message.method === 'job/output/delta' ? (r.message.params as Delta) : null;

async function waitForText(app: AppServerProcess, jobId: string, into: Delta[], pattern: RegExp): Promise<void> {
  while (!pattern.test(stitchOutput(into).toString())) {
    into.push(deltaOf(await app.peer.inbox.take((r) => deltaOf(r)?.jobId === jobId, `output of ${jobId} matching ${pattern}`))!);
  }
}

/** Counts its starts in `starts-<name>`, prints its pid, then numbered lines until `go` exists; exits with `code`. */
const job = (name: string, code: number, prelude = '') =>
  `${prelude}echo started >> starts-${name}; echo "pid:$$"; i=0; while [ ! -e go ]; do i=$((i+1)); echo "line $i"; sleep 0.02; done; echo "last $i"; exit ${code}`;

describe('jobs when their host is killed with SIGKILL', () => {
  it('keep running (one ignoring SIGHUP too); after the restart each has one run, every line once, its real exit, nothing left behind', async () => {
    home = temp.make('wheelhouse-job-kill-');
    let app = startAppServer(home);
    await app.peer.initialize();
    const create = (name: string, command: string) =>
      app.peer.call('job/create', { kind: 'command', name, command, cwd: home, maxAttempts: 0 }).then((r) => r.job);
    const plain = await create('plain', job('plain', 0));
    const hupProof = await create('hup-proof', job('hup-proof', 3, "trap '' HUP; "));

    const before = new Map<string, Delta[]>([[plain.id, []], [hupProof.id, []]]);
    for (const [id, seen] of before) await waitForText(app, id, seen, /line 30\r\n/);
    const pids = [...before.values()].flatMap((seen) => pidsAfter(stitchOutput(seen).toString(), 'pid:'));
    expect(pids).toHaveLength(2);

    app.process.child.kill('SIGKILL');
    expect((await app.exited).signal).toBe('SIGKILL');
    // Nothing of the host's took them along: both still run, under neither the host nor its terminal.
    expect(alive(pids)).toEqual(pids);
    expect(liveRuns(home)).toHaveLength(2);

    app = startAppServer(home);
    await app.peer.initialize();
    for (const id of [plain.id, hupProof.id]) {
      const { job: read, history } = await app.peer.call('job/read', { jobId: id });
      expect(read).toMatchObject({ status: 'running', runs: 1 });
      expect(history.at(-1)?.phase).toBe('reattached');
    }
    const after = new Map<string, Delta[]>([[plain.id, []], [hupProof.id, []]]);
    // It streams on from what it had recorded: a client joining the shown part to the new deltas has no gap.
    for (const [id, seen] of after) await waitForText(app, id, seen, /line \d+\r\n/);
    fs.writeFileSync(path.join(home, 'go'), '');

    const ended = async (id: string, status: Job['status']) =>
      (await app.peer.inbox.take((r) => r.kind === 'notification' && r.message.method === 'job/updated' && (r.message.params as { job: Job }).job.id === id && (r.message.params as { job: Job }).job.status === status, `${id} ${status}`)).message;
    await ended(plain.id, 'completed');
    await ended(hupProof.id, 'failed');
    expect((await app.peer.call('job/read', { jobId: plain.id })).job).toMatchObject({ status: 'completed', exitCode: 0, runs: 1 });
    expect((await app.peer.call('job/read', { jobId: hupProof.id })).job).toMatchObject({ status: 'failed', exitCode: 3, runs: 1, detail: 'exited with code 3', nextRetryAt: null });

    // The rest of the output the client has received.
    for (const notification of app.peer.inbox.drainNotifications()) {
      if (notification.method !== 'job/output/delta') continue;
      const delta = notification.params as Delta;
      after.get(delta.jobId)?.push(delta);
    }
    for (const [name, id] of [['plain', plain.id], ['hup-proof', hupProof.id]] as const) {
      expect(fs.readFileSync(path.join(home, `starts-${name}`), 'utf8'), `${name} started once`).toBe('started\n');
      const log = (await app.peer.call('job/log', { jobId: id, limit: 1024 * 1024 })).data;
      const numbers = [...log.matchAll(/line (\d+)\r\n/g)].map((m) => Number(m[1]));
      expect(numbers, `${name}: every line once, in order`).toEqual(numbers.map((_, i) => i + 1));
      expect(log).toMatch(new RegExp(`last ${numbers.length}\\r\\n$`));
      const shown = stitchOutput(before.get(id)!);
      expect(log.startsWith(shown.toString()), `${name}: what was shown before the kill is the start of the log`).toBe(true);
      expect(stitchOutput(after.get(id)!, shown).toString(), `${name}: before and after together are the log`).toBe(log);
    }
    // No orphan: the commands, their wrappers and terminals are gone.
    await waitUntil(() => alive(pids).length === 0 && liveRuns(home).length === 0, { what: 'the runs to be gone' });

    app.endInput();
    expect((await app.exited).code, app.process.stderr()).toBe(0);
    const db = new Database(path.join(home, 'state.sqlite'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  }, 120_000);
});
