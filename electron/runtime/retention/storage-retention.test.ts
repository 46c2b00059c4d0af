import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ThreadItem } from '../../../shared/protocol/index.js';
import type { Runtime } from '../../host/runtime.js';
import { execCall, mockModelConfig, textReply } from '../../../test-support/agent-commands.js';
import { killAllChildren } from '../../../test-support/child-process.js';
import { ManualClock } from '../../../test-support/manual-clock.js';
import { startMockModelServer, type MockModelServer } from '../../../test-support/mock-model/index.js';
import { TempDirs } from '../../../test-support/temp-dir.js';
import { createTestRuntime } from '../../../test-support/test-runtime.js';
import { waitUntil } from '../../../test-support/waiting.js';
import type { RequestContext } from '../context.js';

/**
 * Retention on a driven clock: an archived thread's events and process log go
 * after the age budget; an open thread's latest turn keeps its events and the
 * log its replay reads; a replay from a removed seq says reset; the prune
 * runs again on the runtime's clock.
 */
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
const DAY = 24 * 60 * 60 * 1000;

describe('storage retention', () => {
  it('after the age budget removes what an archived thread left, keeps what an open thread needs, and a replay from before says reset', async () => {
    const home = temp.make('wheelhouse-retention-');
    const project = temp.make('wheelhouse-retention-project-');
    fs.writeFileSync(path.join(home, 'config.toml'), `${mockModelConfig(mock)}\n[wheelhouse.retention]\nmax_age_days = 7\n`);
    const clock = new ManualClock(Date.now());
    const runtime = createTestRuntime({ home, now: () => clock.now(), upkeepClock: clock });
    runtimes.push(runtime);
    const call = runtime.dispatcher.call.bind(runtime.dispatcher);

    const runCommand = async (threadId: string, lines: number): Promise<Extract<ThreadItem, { type: 'commandExecution' }>> => {
      let done = false;
      const stop = runtime.events.subscribe((n) => {
        if (n.method === 'turn/completed') done = true;
      });
      mock.enqueue(execCall(`seq 1 ${lines}`), textReply('Counted.'));
      await call('turn/start', { threadId, input: [{ type: 'text', text: 'count' }] }, ctx);
      await waitUntil(() => done, { what: 'the turn to complete' });
      stop();
      const read = await call('thread/read', { threadId, includeTurns: true }, ctx);
      return read.thread.turns.at(-1)!.items.find((i) => i.type === 'commandExecution') as Extract<ThreadItem, { type: 'commandExecution' }>;
    };

    const archived = (await call('thread/start', { cwd: project, approvalPolicy: 'never' }, ctx)).thread;
    const open = (await call('thread/start', { cwd: project, approvalPolicy: 'never' }, ctx)).thread;
    const oldItem = await runCommand(archived.id, 5000);
    const keptItem = await runCommand(open.id, 4000);
    await call('thread/archive', { threadId: archived.id }, ctx);
    await runtime.events.announced();
    const lastSeqBefore = runtime.events.lastSeq;
    expect(fs.existsSync(oldItem.logPath!)).toBe(true);
    const usageBefore = (await call('storage/usage', {}, ctx)).usage;
    expect(usageBefore.processLogBytes).toBeGreaterThan(0);

    // The logs on disk must look as old as the clock says.
    const past = new Date(clock.now() - 8 * DAY);
    for (const file of [oldItem.logPath!, keptItem.logPath!]) fs.utimesSync(file, past, past);
    clock.advance(8 * DAY); // the hourly prune fires on the runtime's clock

    expect(fs.existsSync(oldItem.logPath!)).toBe(false);
    expect(fs.existsSync(keptItem.logPath!)).toBe(true);
    const replay = await call('events/replay', { afterSeq: 0, limit: 10_000 }, ctx);
    expect(replay.reset).toBe(true);
    const kept = replay.events.filter((e) => e.threadId === open.id && e.event === 'item/commandExecution/outputDelta');
    const keptText = kept.map((e) => (e.payload as { delta: string }).delta).join('');
    expect(keptText).toBe(fs.readFileSync(keptItem.logPath!, 'utf8'));
    expect(replay.events.some((e) => e.threadId === archived.id && e.turnId !== null)).toBe(false);
    // Numbering goes on above what was removed; what follows it replays whole.
    expect(replay.oldestSeq).toBeLessThanOrEqual(lastSeqBefore + 1);
    const usageAfter = (await call('storage/usage', {}, ctx)).usage;
    expect(usageAfter.processLogBytes).toBeLessThan(usageBefore.processLogBytes);
    expect((await call('storage/usage', {}, ctx)).budgets.maxAgeDays).toBe(7);
  }, 120_000);
});
