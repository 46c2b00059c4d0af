import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeEventEnvelope } from '../../../shared/protocol/index.js';
import type { Runtime } from '../../host/runtime.js';
import { execCall, mockModelConfig, textReply } from '../../../test-support/agent-commands.js';
import { killAllChildren } from '../../../test-support/child-process.js';
import { startMockModelServer, type MockModelServer } from '../../../test-support/mock-model/index.js';
import { TempDirs } from '../../../test-support/temp-dir.js';
import { createTestRuntime } from '../../../test-support/test-runtime.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { homePaths } from '../home.js';
import type { RequestContext } from '../context.js';

/**
 * An agent command's output is stored once, in its process log: the event
 * log keeps where each delta's bytes are, and a replay rebuilds the deltas
 * from the file exactly as clients saw them live. Real pty, real SQLite file.
 */
// ~7.9 MB through a pty. A command's item (head + tail of its output, 64 KB, and what the model
// was told) is stored about three times whatever the output's size (the item, item/completed,
// turn/completed): ~330 KB, which a 2 MB output could not carry within the 10%.
const LINES = 1_000_000;

let mock: MockModelServer;
const temp = new TempDirs();
const runtimes: Runtime[] = [];
beforeAll(async () => {
  mock = await startMockModelServer();
});
afterAll(async () => {
  await mock.close();
  temp.cleanup();
});
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.shutdown();
  await killAllChildren();
});

const ctx: RequestContext = { session: { connectionId: 'in-process', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

function dirBytes(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(full) : fs.statSync(full).size;
  }
  return total;
}

/** The database's files as they stand once the WAL is folded in (what stays on disk). */
function databaseBytes(runtime: Runtime, file: string): number {
  runtime.services.durable.db.pragma('wal_checkpoint(TRUNCATE)');
  return ['', '-wal', '-shm'].reduce((sum, suffix) => sum + (fs.existsSync(file + suffix) ? fs.statSync(file + suffix).size : 0), 0);
}

describe('command output stored once', () => {
  it(`seq 1 ${LINES}: replay rebuilds every delta byte for byte from the process log, and storage stays within 1.1 × the output`, async () => {
    const home = temp.make('wheelhouse-once-');
    const project = temp.make('wheelhouse-once-project-');
    fs.writeFileSync(path.join(home, 'config.toml'), mockModelConfig(mock));
    const runtime = createTestRuntime({ home });
    runtimes.push(runtime);
    const paths = homePaths(home);

    const live = new Map<number, string>();
    let completed = false;
    runtime.events.subscribe((notification, text) => {
      if (notification.method === 'item/commandExecution/outputDelta') live.set(notification.seq!, text);
      if (notification.method === 'turn/completed') completed = true;
    });
    const { thread } = await runtime.dispatcher.call('thread/start', { cwd: project, approvalPolicy: 'never' }, ctx);
    await runtime.events.announced();
    const dbBefore = databaseBytes(runtime, paths.stateDb);
    const logsBefore = dirBytes(paths.logs);
    mock.enqueue(execCall(`seq 1 ${LINES}`), textReply('Counted.'));
    await runtime.dispatcher.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'count' }] }, ctx);
    await waitUntil(() => completed, { what: 'the turn to complete' });

    const liveDeltas = [...live.entries()].map(([seq, text]) => ({ seq, delta: (JSON.parse(text) as { params: { delta: string } }).params.delta }));
    const outputBytes = Buffer.byteLength(liveDeltas.map((d) => d.delta).join(''));
    expect(outputBytes).toBeGreaterThan(LINES * 6);

    // Replayed as a reconnecting client replays: events/replay from before the turn, page by page.
    const replayed: RuntimeEventEnvelope[] = [];
    for (let after = 0; ; ) {
      const page = await runtime.dispatcher.call('events/replay', { afterSeq: after, limit: 500 }, ctx);
      expect(page.reset).toBe(false);
      replayed.push(...page.events);
      if (page.events.length < 500) break;
      after = page.events.at(-1)!.seq;
    }
    const replayedDeltas = replayed
      .filter((e) => e.event === 'item/commandExecution/outputDelta')
      .map((e) => ({ seq: e.seq, delta: (e.payload as { delta: string }).delta }));
    expect(replayedDeltas.length).toBe(liveDeltas.length);
    // Byte for byte, event by event (a mismatch names the first seq that differs).
    const firstMismatch = replayedDeltas.findIndex((d, i) => d.seq !== liveDeltas[i]!.seq || d.delta !== liveDeltas[i]!.delta);
    expect(firstMismatch).toBe(-1);

    // The bytes are not in the database a second time: all files together stay within 1.1 × the output.
    const rows = runtime.services.durable.db
      .prepare("SELECT COUNT(*) AS refs FROM events WHERE event = 'item/commandExecution/outputDelta' AND output_file IS NOT NULL")
      .get() as { refs: number };
    expect(rows.refs).toBeGreaterThan(0);
    const stored = databaseBytes(runtime, paths.stateDb) - dbBefore + (dirBytes(paths.logs) - logsBefore);
    expect(stored / outputBytes).toBeLessThanOrEqual(1.1);
  }, 240_000);
});

describe('command output that is not all whole UTF-8', () => {
  it('streams characters split between batches and invalid bytes the same live and replayed, matching the log decoded', async () => {
    const home = temp.make('wheelhouse-once-');
    const project = temp.make('wheelhouse-once-project-');
    fs.writeFileSync(path.join(home, 'config.toml'), mockModelConfig(mock));
    const runtime = createTestRuntime({ home });
    runtimes.push(runtime);
    const live = new Map<number, string>();
    let logPath: string | null = null;
    let completed = false;
    runtime.events.subscribe((notification, text) => {
      if (notification.method === 'item/commandExecution/outputDelta') live.set(notification.seq!, text);
      if (notification.method === 'item/completed' && notification.params.item.type === 'commandExecution') logPath = notification.params.item.logPath ?? null;
      if (notification.method === 'turn/completed') completed = true;
    });
    const { thread } = await runtime.dispatcher.call('thread/start', { cwd: project, approvalPolicy: 'never' }, ctx);
    // Three- and four-byte characters cross the 64 KB batches; two bytes that are no UTF-8 at all in the middle.
    mock.enqueue(execCall(`yes 'héllo ✓ 终端 🚀' | head -n 40000; printf '\\377\\376 not utf-8\\n'; yes 'after ✓' | head -n 40000`), textReply('Done.'));
    await runtime.dispatcher.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'print' }] }, ctx);
    await waitUntil(() => completed, { what: 'the turn to complete' });

    const liveDeltas = [...live.entries()].map(([seq, text]) => ({ seq, delta: (JSON.parse(text) as { params: { delta: string } }).params.delta }));
    expect(liveDeltas.map((d) => d.delta).join('')).toBe(fs.readFileSync(logPath!).toString('utf8'));
    expect(liveDeltas.length).toBeGreaterThan(10);
    const page = await runtime.dispatcher.call('events/replay', { afterSeq: 0, limit: 10_000 }, ctx);
    const replayed = page.events.filter((e) => e.event === 'item/commandExecution/outputDelta').map((e) => ({ seq: e.seq, delta: (e.payload as { delta: string }).delta }));
    expect(replayed).toEqual(liveDeltas);
  }, 120_000);
});
