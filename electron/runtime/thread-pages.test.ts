import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, type AnyNotification, type ClientMethod, type ParamsOf, type ResultOf } from '../../shared/protocol/index.js';
import type { ModelClient, ModelStreamEvent } from '../model/types.js';
import type { RequestContext } from './context.js';
import type { Runtime } from '../host/runtime.js';
import { createTestRuntime } from '../../test-support/test-runtime.js';
import { waitUntil } from '../../test-support/waiting.js';

/** The model answers every request with `answer <n>`. */
class CountingModel implements ModelClient {
  private count = 0;
  async *stream(): AsyncIterable<ModelStreamEvent> {
    yield { type: 'textDelta', delta: `answer ${++this.count}` };
    yield { type: 'done', finishReason: 'stop' };
  }
  async listModels() {
    return [];
  }
}

const ctx: RequestContext = { session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() } };
const homes: string[] = [];
const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.shutdown();
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

function open(home: string) {
  const runtime = createTestRuntime({
    home,
    validateResults: true,
    defaults: { cwd: home },
    bindModel: async () => ({ client: new CountingModel(), model: 'test-model', contextWindow: 1000 }),
  });
  runtimes.push(runtime);
  const seen: AnyNotification[] = [];
  runtime.events.subscribe((n) => seen.push(n));
  const call = <M extends ClientMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> => runtime.dispatcher.call(method, params, ctx);
  const completedTurns = (count: number) =>
    waitUntil(() => seen.filter((n) => n.method === 'turn/completed').length >= count || undefined, {
      what: `${count} completed turns`,
      wakeOn: (wake) => runtime.events.subscribe(wake),
    });
  return { runtime, call, completedTurns };
}

/** A thread with five finished turns (`ask 1` … `ask 5`, each answered), reopened after a restart. */
async function threadWithHistory() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'wh-pages-'));
  homes.push(home);
  const first = open(home);
  const { thread } = await first.call('thread/start', {});
  for (let n = 1; n <= 5; n++) {
    await first.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: `ask ${n}` }] });
    await first.completedTurns(n);
  }
  await first.runtime.shutdown();
  runtimes.splice(runtimes.indexOf(first.runtime), 1);
  return { threadId: thread.id, ...open(home) };
}

const askOf = (turn: ResultOf<'thread/turns/list'>['data'][number]) => {
  const user = turn.items.find((item) => item.type === 'userMessage');
  return user?.type === 'userMessage' && user.content[0]?.type === 'text' ? user.content[0].text : null;
};

describe('paged history (Codex thread/turns/list, thread/items/list)', () => {
  it('resume answers with the whole history and cursors that page it back, each turn and item exactly once', async () => {
    const { threadId, call } = await threadWithHistory();
    const resumed = await call('thread/resume', { threadId });
    expect(resumed.thread.historyMode).toBe('paginated');
    expect(resumed.thread.turns).toHaveLength(5);
    expect(resumed.turnsBackwardsCursor).toEqual(expect.any(String));
    expect(resumed.itemsBackwardsCursor).toEqual(expect.any(String));

    const turnPages: ResultOf<'thread/turns/list'>[] = [];
    let cursor: string | null = resumed.turnsBackwardsCursor;
    do {
      const page: ResultOf<'thread/turns/list'> = await call('thread/turns/list', { threadId, cursor, limit: 2, sortDirection: 'desc' });
      turnPages.push(page);
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(turnPages.map((page) => page.data.map(askOf))).toEqual([['ask 5', 'ask 4'], ['ask 3', 'ask 2'], ['ask 1']]);
    // Codex's default view: each turn's first user message and last agent message.
    expect(turnPages[0]!.data[0]).toMatchObject({ itemsView: 'summary', items: [{ type: 'userMessage' }, { type: 'agentMessage' }] });

    // Back the other way from the middle page: its first turn again, then the newer ones.
    const forwards = await call('thread/turns/list', { threadId, cursor: turnPages[1]!.backwardsCursor, sortDirection: 'asc', itemsView: 'notLoaded' });
    expect(forwards.data.map((turn) => [turn.itemsView, turn.items.length])).toEqual([['notLoaded', 0], ['notLoaded', 0], ['notLoaded', 0]]);
    expect(forwards.data.map((turn) => turn.id)).toEqual(resumed.thread.turns.slice(2).map((turn) => turn.id));
    expect(forwards.nextCursor).toBeNull();

    const allItems = resumed.thread.turns.flatMap((turn) => turn.items.map((item) => item.id));
    expect(allItems).toHaveLength(10);
    const seen: string[] = [];
    cursor = resumed.itemsBackwardsCursor;
    do {
      const page: ResultOf<'thread/items/list'> = await call('thread/items/list', { threadId, cursor, limit: 3, sortDirection: 'desc' });
      seen.push(...page.data.map((entry) => entry.item.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual([...allItems].reverse());

    // Oldest first by default; one turn's items, and after an item anchor in it (Codex's exclusive anchor).
    const oldest = await call('thread/items/list', { threadId, limit: 4 });
    expect(oldest.data.map((entry) => entry.item.id)).toEqual(allItems.slice(0, 4));
    expect(oldest.data[0]).toMatchObject({ turnId: resumed.thread.turns[0]!.id, outputDeferred: false, startedAtMs: expect.any(Number) });
    const third = resumed.thread.turns[2]!;
    const ofTurn = await call('thread/items/list', { threadId, turnId: third.id });
    expect(ofTurn.data.map((entry) => entry.item.id)).toEqual(third.items.map((item) => item.id));
    const afterAnchor = await call('thread/items/list', { threadId, turnId: third.id, cursor: { type: 'item', itemId: third.items[0]!.id } });
    expect(afterAnchor.data.map((entry) => entry.item.id)).toEqual([third.items[1]!.id]);
  });

  it('excludeTurns leaves the turns out, initialTurnsPage answers with the newest page', async () => {
    const { threadId, call } = await threadWithHistory();
    const resumed = await call('thread/resume', { threadId, excludeTurns: true, initialTurnsPage: { limit: 2, itemsView: 'full' } });
    expect(resumed.thread.turns).toEqual([]);
    expect(resumed.initialTurnsPage?.data.map(askOf)).toEqual(['ask 5', 'ask 4']);
    expect(resumed.initialTurnsPage?.data[0]?.itemsView).toBe('full');
    const rest = await call('thread/turns/list', { threadId, cursor: resumed.initialTurnsPage!.nextCursor });
    expect(rest.data.map(askOf)).toEqual(['ask 3', 'ask 2', 'ask 1']);
  });

  it('refuses a cursor that is not one, one for another thread, and one whose turn was rolled back, with -32602', async () => {
    const { threadId, call } = await threadWithHistory();
    const { thread: other } = await call('thread/start', {});
    const resumed = await call('thread/resume', { threadId });
    const refused = (promise: Promise<unknown>, words: string) =>
      expect(promise).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining(words) });
    await refused(call('thread/turns/list', { threadId, cursor: 'garbage' }), 'not a cursor');
    await refused(call('thread/turns/list', { threadId: other.id, cursor: resumed.turnsBackwardsCursor }), 'cursor');
    await refused(call('thread/turns/list', { threadId, cursor: resumed.itemsBackwardsCursor }), 'cursor');
    await refused(call('thread/items/list', { threadId, cursor: { type: 'item', itemId: 'x' } }), 'turnId');
    await refused(call('thread/items/list', { threadId, turnId: 'no-such-turn' }), 'no-such-turn');
    await call('thread/rollback', { threadId, numTurns: 1 });
    await refused(call('thread/turns/list', { threadId, cursor: resumed.turnsBackwardsCursor }), 'no longer');
    await expect(call('thread/turns/list', { threadId: 'no-such-thread' })).rejects.toMatchObject({ code: ErrorCode.InvalidRequest });
    expect((await call('thread/resume', { threadId: other.id })).turnsBackwardsCursor).toBeNull();
  });
});
