import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyNotification, ClientMethod, ParamsOf, ConversationItem, Turn } from '../../../shared/protocol/index.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from '../../model/types.js';
import type { RequestContext } from '../context.js';
import type { Runtime } from '../../host/runtime.js';
import { createTestRuntime } from '../../../test-support/test-runtime.js';
import { waitUntil } from '../../../test-support/waiting.js';

/**
 * What a crash leaves behind. `Runtime.close()` drops the databases under a
 * running turn, which is what a kill does to it: the turn never finishes and
 * nothing it would have written at its end lands. (The kill -9 harness in
 * electron/server/kill-harness.test.ts does the same to a real process.)
 */

/** Each request streams its text, then waits until the turn is stopped or the runtime goes away. */
class StallingModel implements ModelClient {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly replies: string[][]) {}
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    this.requests.push(request);
    const deltas = this.replies.shift() ?? ['(no script)'];
    return (async function* () {
      for (const delta of deltas) yield { type: 'textDelta' as const, delta };
      // A reply whose last delta is '.' finishes; any other stalls.
      if (deltas.at(-1) === '.') {
        yield { type: 'done' as const, finishReason: 'stop' as const };
        return;
      }
      await new Promise<void>((resolve) => request.signal.addEventListener('abort', () => resolve()));
    })();
  }
  async listModels() {
    return [];
  }
}

const ctx: RequestContext = {
  session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() },
};
const text = (t: string) => [{ type: 'text' as const, text: t }];

const homes: string[] = [];
const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.shutdown();
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});

function start(model: ModelClient, home = fs.mkdtempSync(path.join(os.tmpdir(), 'wh-crash-'))) {
  if (!homes.includes(home)) homes.push(home);
  const runtime = createTestRuntime({
    home,
    validateResults: true,
    defaults: { cwd: home },
    bindModel: async () => ({ client: model, model: 'test-model', contextWindow: 1000 }),
  });
  runtimes.push(runtime);
  const seen: AnyNotification[] = [];
  runtime.events.subscribe((n) => seen.push(n));
  const call = <M extends ClientMethod>(m: M, p: ParamsOf<M>) => runtime.dispatcher.call(m, p, ctx);
  const waitFor = (pred: (n: AnyNotification) => boolean, what = 'a matching notification') =>
    waitUntil(() => seen.find(pred), { what, wakeOn: (wake) => runtime.events.subscribe(wake) });
  /** A kill: nothing more is written. */
  const crash = () => runtime.close();
  return { runtime, home, seen, call, waitFor, crash };
}

describe('after a crash', () => {
  it('an acknowledged steer is in the thread, after the reply that was streaming, and reaches the model next time', async () => {
    const model = new StallingModel([['Working on it'], ['Done', '.']]);
    const first = start(model);
    const { thread } = await first.call('thread/start', {});
    const { turn } = await first.call('turn/start', { threadId: thread.id, input: text('build it') });
    await first.waitFor((n) => n.method === 'item/agentMessage/delta');
    // Acknowledged: the call returned and item/completed went out for it.
    await first.call('turn/steer', { threadId: thread.id, expectedTurnId: turn.id, input: text('use Python') });
    first.crash();

    const second = start(model, first.home);
    const { items } = await second.call('thread/read', { threadId: thread.id });
    const users = items.filter((i: ConversationItem) => i.type === 'userMessage').map((i: Extract<ConversationItem, { type: 'userMessage' }>) => i.content[0]!.text);
    expect(users).toEqual(['build it', 'use Python']);
    await second.call('turn/start', { threadId: thread.id, input: text('go on') });
    await second.waitFor((n) => n.method === 'turn/completed');
    const history = model.requests[1]!.messages.map((m) => [m.role, m.content]);
    expect(history.filter(([role]) => role === 'user')).toEqual([
      ['user', 'build it'],
      ['user', 'use Python'],
      ['user', 'go on'],
    ]);
  });

  it('a half-streamed reply is kept as an incomplete agentMessage, before any steer that came during it', async () => {
    const model = new StallingModel([['First part, ', 'second part']]);
    const first = start(model);
    const { thread } = await first.call('thread/start', {});
    const { turn } = await first.call('turn/start', { threadId: thread.id, input: text('talk') });
    await first.waitFor((n) => n.method === 'item/agentMessage/delta');
    await first.call('turn/steer', { threadId: thread.id, expectedTurnId: turn.id, input: text('shorter please') });
    // The checkpoint is written within STREAM_CHECKPOINT_MS of the text arriving.
    await waitUntil(() => (first.runtime.services.durable.db.prepare("SELECT COUNT(*) AS n FROM pending_items WHERE kind = 'streaming'").get() as { n: number }).n === 1, {
      what: 'the streaming reply to be checkpointed',
    });
    first.crash();

    const second = start(model, first.home);
    const { items } = await second.call('thread/read', { threadId: thread.id });
    expect(items.map((i: ConversationItem) => i.type)).toEqual(['userMessage', 'agentMessage', 'userMessage']);
    expect(items[1]).toMatchObject({ text: 'First part, second part', incomplete: true, turnId: turn.id });
  });

  it('the interrupted turn ends in the event log, so replay shows turn/completed and the thread status', async () => {
    const model = new StallingModel([['Working']]);
    const first = start(model);
    const { thread } = await first.call('thread/start', {});
    const { turn } = await first.call('turn/start', { threadId: thread.id, input: text('long job') });
    await first.waitFor((n) => n.method === 'item/agentMessage/delta');
    const lastSeen = first.seen.at(-1)!.seq!;
    first.crash();

    const second = start(model, first.home);
    const replay = await second.call('events/replay', { afterSeq: 0, threadId: thread.id });
    const methods = replay.events.map((e: { event: string }) => e.event);
    expect(methods[methods.length - 2]).toBe('turn/completed');
    expect(methods[methods.length - 1]).toBe('thread/status/changed');
    const ended = replay.events.at(-2)!;
    expect(ended.seq).toBeGreaterThan(lastSeen);
    expect((ended.payload as { turn: Turn }).turn).toMatchObject({ id: turn.id, status: 'interrupted' });
    expect((ended.payload as { turn: Turn }).turn.error?.message).toMatch(/stopped while this turn was running/);
    // A third start finds nothing left to recover and writes no second ending.
    second.crash();
    const third = start(model, first.home);
    const again = await third.call('events/replay', { afterSeq: 0, threadId: thread.id });
    expect(again.events.filter((e: { event: string }) => e.event === 'turn/completed')).toHaveLength(1);
  });

  it('a reply cut off by turn/interrupt is kept and marked incomplete; a finished one is not', async () => {
    const model = new StallingModel([['All done.', '.'], ['Half']]);
    const { call, waitFor } = start(model);
    const { thread } = await call('thread/start', {});
    await call('turn/start', { threadId: thread.id, input: text('one') });
    await waitFor((n) => n.method === 'turn/completed');
    const { turn } = await call('turn/start', { threadId: thread.id, input: text('two') });
    await waitFor((n) => n.method === 'item/agentMessage/delta' && (n.params as { turnId: string }).turnId === turn.id);
    await call('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    const { items } = await call('thread/read', { threadId: thread.id });
    const replies = items.filter((i: ConversationItem) => i.type === 'agentMessage');
    expect(replies[0]).toMatchObject({ text: 'All done..' });
    expect(replies[0]).not.toHaveProperty('incomplete');
    expect(replies[1]).toMatchObject({ text: 'Half', incomplete: true });
  });
});
