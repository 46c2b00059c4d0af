import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Job } from '../../../shared/protocol/index.js';
import { RpcHost } from '../../../electron/server/rpc-host.js';
import { createTestRuntime } from '../../../test-support/test-runtime.js';
import { waitUntil } from '../../../test-support/waiting.js';
import type { ClosableTransport } from '../client/websocket-transport.js';
import { WheelhouseClient } from '../client/wheelhouse-client.js';
import { JobLogSource, LOG_PAGE_LINES } from './job-log-store.js';

/** The log view's source against a real runtime (real jobs in a pty, real log files), over an in-process carrier. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'wh-job-log-'));
  const runtime = createTestRuntime({ home, defaults: { cwd: home }, killGraceMs: 1000 });
  const host = new RpcHost(runtime);
  const connector = async (): Promise<ClosableTransport> => {
    const messages = new Set<(text: string) => void>();
    const closes = new Set<(reason: string) => void>();
    let open = true;
    const connection = host.connect('in-process', { send: (text) => queueMicrotask(() => open && messages.forEach((listener) => listener(text))) });
    return {
      send: (text) => void (open && connection.receive(text)),
      onMessage: (listener) => (messages.add(listener), () => messages.delete(listener)),
      onClose: (listener) => (closes.add(listener), () => closes.delete(listener)),
      close: () => {
        open = false;
        host.disconnect(connection);
      },
    };
  };
  const client = new WheelhouseClient({ connector, reconnect: false, clientVersion: 'test' });
  client.start();
  const jobs = new Map<string, Job>();
  client.on('job/updated', ({ job }) => jobs.set(job.id, job));
  cleanups.push(async () => {
    client.stop();
    host.close();
    await runtime.shutdown();
    fs.rmSync(home, { recursive: true, force: true });
  });
  /** Lets the runtime and the link work until `check` holds (vitest's timeout bounds a hang). */
  const until = (check: () => boolean, what: string) => waitUntil(check, { what });
  await until(() => client.getSnapshot().status === 'connected', 'connected');
  const run = async (command: string, maxAttempts = 0): Promise<Job> => {
    const { job } = await client.request('job/create', { kind: 'command', command, cwd: home, maxAttempts });
    return job;
  };
  const open = (jobId: string, attempt: number) => {
    const source = new JobLogSource(client, jobId, attempt);
    cleanups.push(() => source.dispose());
    return source;
  };
  return { client, jobs, until, run, open, home };
}

describe('job log source', () => {
  it('follows a running job to its last line and learns when it has ended, holding only what was asked for', async () => {
    const { until, run, open, home } = await setup();
    // The source opens once the 3000 lines are written (as a person opening a busy job's page); the last line waits for the test.
    const job = await run("for i in $(seq 1 3000); do echo \"line $i\"; done; touch written; while [ ! -f go ]; do sleep 0.05; done; echo 'last line'");
    await until(() => fs.existsSync(path.join(home, 'written')), 'the first 3000 lines written');
    const source = open(job.id, 1);
    await until(() => source.store.getState().lineCount >= 3000, 'the source sees the lines');
    fs.writeFileSync(path.join(home, 'go'), '');
    await until(() => source.store.getState().ended && source.store.getState().lineCount === 3001, 'the whole run followed');
    // The view's tail refresh brought the end: the last line is there without asking for it.
    expect(source.line(3000)).toBe('last line');
    // Lines far from the end are not fetched until they are wanted.
    expect(source.line(10)).toBeUndefined();
    source.want(1000, 1010);
    await until(() => source.line(1005) !== undefined, 'a page in the middle');
    expect(source.line(1005)).toBe('line 1006');
    // A whole page came, not only the lines asked for.
    expect(source.line(Math.floor(1000 / LOG_PAGE_LINES) * LOG_PAGE_LINES)).toBeDefined();
  });

  it('finds every matching line, steps through them both ways, and searches new lines as they come', async () => {
    const { jobs, until, run, open, home } = await setup();
    // The late line waits for the test to say so.
    const job = await run("seq -f 'row %g' 1 500; echo 'needle early'; while [ ! -f go ]; do sleep 0.05; done; echo 'NEEDLE late'; sleep 0.3");
    await until(() => (jobs.get(job.id)?.runs ?? 0) >= 1, 'started');
    const source = open(job.id, 1);
    await until(() => source.store.getState().lineCount >= 501, 'the early lines');
    await source.search('needle');
    expect(source.store.getState().search).toMatchObject({ query: 'needle', matches: [500], current: 0, searching: false });
    fs.writeFileSync(path.join(home, 'go'), '');
    await until(() => source.store.getState().search.matches.length === 2, 'the late match found as it arrived');
    expect(source.store.getState().search.matches).toEqual([500, 501]);
    const shownBefore = source.store.getState().search.shown;
    const stepTo = (direction: 1 | -1) => {
      source.step(direction);
      const { search } = source.store.getState();
      return search.matches[search.current];
    };
    expect(stepTo(1)).toBe(501);
    expect(stepTo(1)).toBe(500);
    expect(stepTo(-1)).toBe(501);
    // Each step asks the view to go to the match.
    expect(source.store.getState().search.shown).toBe(shownBefore + 3);
    // The match nearest below where the person is becomes current.
    await source.search('row 4', 300);
    const { search } = source.store.getState();
    expect(search.matches[search.current]).toBe(399);
    // Nothing past where the person is: the search wraps round to the first match.
    await source.search('needle', 501 + 1);
    expect(source.store.getState().search).toMatchObject({ matches: [500, 501], current: 0 });
    await source.search('absent');
    expect(source.store.getState().search).toMatchObject({ matches: [], current: -1, searching: false });
    await source.search('');
    expect(source.store.getState().search.query).toBe('');
  });

  it('reads each attempt on its own, and gives the whole log as the text it shows', async () => {
    const { jobs, until, run, open } = await setup();
    const job = await run("if [ -f m ]; then printf '\\033[32mok\\033[0m\\nfetching 10%%\\rfetching 100%%\\n'; seq 1 20000; else touch m; echo 'first attempt'; exit 3; fi", 1);
    await until(() => jobs.get(job.id)?.status === 'completed', 'completed on the retry');
    const firstAttempt = open(job.id, 1);
    await until(() => firstAttempt.store.getState().loaded, 'attempt 1 read');
    expect(firstAttempt.store.getState()).toMatchObject({ lineCount: 1, ended: true });
    expect(firstAttempt.line(0)).toBe('first attempt');

    const second = open(job.id, 2);
    const progress: number[] = [];
    const text = await (await second.plainText((fraction) => progress.push(fraction))).text();
    const lines = text.split('\n');
    expect(lines.slice(0, 3)).toEqual(['ok', 'fetching 100%', '1']);
    expect(lines[20001]).toBe('20000');
    expect(lines).toHaveLength(20003);
    expect(progress.at(-1)).toBe(1);
  });
});
