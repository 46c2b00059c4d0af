import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuntimeEventEnvelope, ConversationItem, Turn } from '../../shared/protocol/index.js';
import { mockModelConfig } from '../../test-support/agent-commands.js';
import { startAppServer, type AppServerProcess } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { CrashObserver, seededRandom } from '../../test-support/crash-observer.js';
import { startMockModelServer, type MockModelServer, type MockScript } from '../../test-support/mock-model/index.js';
import { TempDirs } from '../../test-support/temp-dir.js';

/**
 * The kill -9 harness: one home, one `wheelhouse app-server` after another,
 * each killed with SIGKILL at a random point of a random scenario (mid-stream,
 * during steer, during a burst of turns, during fork). After every restart
 * the new process is checked against everything the client saw before.
 * WHEELHOUSE_KILL_SEED repeats a run; the seed is in every failure message.
 */
const ITERATIONS = 8;
/** A reply streamed this long before the kill must have been checkpointed (STREAM_CHECKPOINT_MS is 300). */
const CHECKPOINT_GRACE_MS = 2000;

/**
 * A fresh mock provider per process: a request the killed process had sent
 * may still reach its mock afterwards, and must not take the next process's script.
 */
let mock: MockModelServer | undefined;
const temp = new TempDirs();
afterEach(async () => {
  await killAllChildren();
  await mock?.close();
  mock = undefined;
  temp.cleanup();
});

const text = (t: string) => [{ type: 'text' as const, text: t }];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('kill -9 at random points', () => {
  it('never reuses a seq, keeps every acknowledged item, ends every interrupted turn in the log, keeps the file sound', async () => {
    const seed = Number(process.env.WHEELHOUSE_KILL_SEED ?? Date.now() % 1_000_000);
    const rng = seededRandom(seed);
    const why = (what: string) => `${what} (WHEELHOUSE_KILL_SEED=${seed})`;
    const home = temp.make('wheelhouse-kill-');
    const observer = new CrashObserver();
    /** Durable threads the client knows of (ephemeral ones vanish with their process). */
    const threads = new Set<string>();
    let life = 0;
    let app: AppServerProcess;
    let stdoutClosed: Promise<void>;

    let model!: MockModelServer;
    const launch = async () => {
      model = mock = await startMockModelServer();
      fs.writeFileSync(path.join(home, 'config.toml'), mockModelConfig(model));
      app = startAppServer(home);
      stdoutClosed = observer.follow(app, `process ${++life}`);
      await app.peer.initialize();
    };
    const kill = async () => {
      app.process.child.kill('SIGKILL');
      expect((await app.exited).signal, why(`process ${life} ended by itself: ${app.process.stderr()}`)).toBe('SIGKILL');
      await stdoutClosed;
      await model.close();
    };
    const newThread = async (ephemeral = false) => {
      const { thread } = await app.peer.call('thread/start', { cwd: home, ephemeral });
      if (!ephemeral) threads.add(thread.id);
      return thread.id;
    };

    const scenarios: Record<string, () => Promise<void>> = {
      midStream: async () => {
        const threadId = await newThread();
        const words: MockScript = Array.from({ length: 400 }, (_, i) => [{ type: 'text', text: `w${i} ` } as const, { type: 'delay', ms: 10 } as const]).flat();
        model.enqueue([...words, { type: 'finish' }]);
        await app.peer.call('turn/start', { threadId, input: text('stream a lot') });
        await app.peer.inbox.notification('item/agentMessage/delta');
        await sleep(rng.int(0, 3000));
      },
      duringSteer: async () => {
        const threadId = await newThread(rng.next() < 0.25);
        model.enqueue([{ type: 'text', text: 'Working' }, { type: 'stall' }]);
        const { turn } = await app.peer.call('turn/start', { threadId, input: text('long job') });
        await app.peer.inbox.notification('item/agentMessage/delta');
        const steer = (n: number) => app.peer.call('turn/steer', { threadId, expectedTurnId: turn.id, input: text(`steer ${n}`) });
        for (let n = rng.int(1, 3); n > 0; n--) await steer(n);
        // One more the kill may or may not beat.
        void steer(0).catch(() => undefined);
        await sleep(rng.int(0, 5));
      },
      burst: async () => {
        const ids = [await newThread(), await newThread(), await newThread(true), await newThread()];
        for (const [n] of ids.entries()) model.enqueue([{ type: 'text', text: `Reply ${n}` }, { type: 'delay', ms: rng.int(0, 40) }, { type: 'finish' }]);
        await Promise.all(ids.map((threadId, n) => app.peer.call('turn/start', { threadId, input: text(`turn ${n}`) })));
        for (let done = rng.int(0, ids.length); done > 0; done--) await app.peer.inbox.notification('turn/completed');
      },
      duringFork: async () => {
        const threadId = await newThread();
        model.enqueue([{ type: 'text', text: 'Forkable.' }, { type: 'finish' }]);
        await app.peer.call('turn/start', { threadId, input: text('something to fork') });
        await app.peer.inbox.notification('turn/completed');
        void app.peer
          .call('thread/fork', { threadId })
          .then(({ thread, items }) => {
            threads.add(thread.id);
            for (const item of items) observer.acknowledged.set(item.id, thread.id);
          })
          .catch(() => undefined);
        await sleep(rng.int(0, 15));
      },
    };

    /** Checks the freshly started process against everything seen before the kill. */
    const verify = async () => {
      const replayAll = async (threadId?: string) => {
        const events: RuntimeEventEnvelope[] = [];
        for (let after = 0; ; ) {
          const page = await app.peer.call('events/replay', { afterSeq: after, limit: 10_000, ...(threadId ? { threadId } : {}) });
          events.push(...page.events);
          if (page.events.length < 10_000) return events;
          after = page.events.at(-1)!.seq;
        }
      };
      for (const event of await replayAll()) {
        const seen = observer.seen.get(event.seq);
        if (seen !== undefined) expect(event.event, why(`the log and the client disagree on seq ${event.seq}`)).toBe(seen);
      }
      for (const threadId of threads) {
        const read = await app.peer.call('thread/read', { threadId, includeTurns: true });
        const items = new Map<string, ConversationItem>(read.items.map((item) => [item.id, item]));
        for (const [itemId, owner] of observer.acknowledged) {
          if (owner === threadId) expect(items.has(itemId), why(`acknowledged item ${itemId} of thread ${threadId} is lost`)).toBe(true);
        }
        const ended = new Set(
          (await replayAll(threadId)).filter((e) => e.event === 'turn/completed').map((e) => (e.payload as { turn: Turn }).turn.id),
        );
        for (const turn of read.thread.turns) {
          expect(turn.status, why(`turn ${turn.id} still running after restart`)).not.toBe('inProgress');
          if (turn.status === 'interrupted') expect(ended.has(turn.id), why(`interrupted turn ${turn.id} has no end in the log`)).toBe(true);
        }
        for (const [itemId, reply] of observer.streamed) {
          if (reply.threadId !== threadId || reply.completed) continue;
          const kept = items.get(itemId);
          if ((reply.killedAtMs ?? 0) - reply.firstDeltaAtMs >= CHECKPOINT_GRACE_MS) expect(kept, why(`streamed reply ${itemId} was not checkpointed`)).toBeDefined();
          if (!kept) continue;
          expect(kept.type).toBe('agentMessage');
          const keptText = kept.type === 'agentMessage' ? kept.text : '';
          if (kept.type === 'agentMessage' && kept.incomplete) {
            // Checkpointed: the client may have seen more or less of the same stream.
            expect(reply.text.startsWith(keptText) || keptText.startsWith(reply.text), why(`kept text of ${itemId} is not what streamed`)).toBe(true);
          } else {
            // It finished before the kill; only its item/completed was lost with the process.
            expect(keptText.startsWith(reply.text), why(`finished reply ${itemId} is not what streamed`)).toBe(true);
          }
        }
      }
      expect(observer.violations, why('seq violations')).toEqual([]);
    };

    const names = Object.keys(scenarios);
    const plan = Array.from({ length: ITERATIONS }, (_, n) => names[n % names.length]!).sort(() => rng.next() - 0.5);
    await launch();
    for (const name of plan) {
      await scenarios[name]!();
      observer.killed(Date.now());
      await kill();
      await launch();
      await verify();
    }
    // The last process hands out numbers above everything seen, then stops cleanly.
    const before = Math.max(...observer.seen.keys());
    await newThread();
    await app!.peer.inbox.notification('thread/started');
    expect(Math.max(...observer.seen.keys()), why('the restarted runtime numbers on')).toBeGreaterThan(before);
    app!.endInput();
    expect((await app!.exited).code, app!.process.stderr()).toBe(0);
    expect(observer.violations, why('seq violations')).toEqual([]);

    const db = new Database(path.join(home, 'state.sqlite'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
    } finally {
      db.close();
    }
  }, 120_000);
});
