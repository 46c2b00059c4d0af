import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyNotification, ClientMethod, ParamsOf } from '../../../shared/protocol/index.js';
import { ModelError, type ModelClient, type ModelRequest, type ModelStreamEvent } from '../../model/types.js';
import type { RequestContext } from '../context.js';
import type { Runtime } from '../../host/runtime.js';
import { createTestRuntime } from '../../../test-support/test-runtime.js';
import { waitUntil } from '../../../test-support/waiting.js';

/** A scripted model: each request takes the next script; requests are recorded. */
class ScriptedModel implements ModelClient {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly scripts: Array<(req: ModelRequest) => AsyncIterable<ModelStreamEvent>>) {}
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    this.requests.push(request);
    const next = this.scripts.shift();
    if (!next) throw new Error('no script left');
    return next(request);
  }
  async listModels() {
    return [];
  }
}

const usage = (total: number) => ({ totalTokens: total, inputTokens: total - 10, cachedInputTokens: 5, cacheWriteInputTokens: 0, outputTokens: 10, reasoningOutputTokens: 0 });

function reply(...events: ModelStreamEvent[]) {
  return async function* () {
    for (const e of events) yield e;
  };
}

const ctx: RequestContext = {
  session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() },
};

const homes: string[] = [];
const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.shutdown();
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});

function setup(model: ScriptedModel, home?: string) {
  const dir = home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'wh-turn-'));
  if (!home) homes.push(dir);
  const runtime = createTestRuntime({
    home: dir,
    validateResults: true,
    defaults: { cwd: dir },
    bindModel: async () => ({ client: model, model: 'test-model', contextWindow: 1000 }),
  });
  runtimes.push(runtime);
  const seen: AnyNotification[] = [];
  runtime.events.subscribe((n) => seen.push(n));
  const call = <M extends ClientMethod>(m: M, p: ParamsOf<M>, c: RequestContext) => runtime.dispatcher.call(m, p, c);
  const waitFor = (pred: (n: AnyNotification) => boolean, what = 'a matching notification') =>
    waitUntil(() => seen.find(pred), { what, wakeOn: (wake) => runtime.events.subscribe(wake) });
  return { runtime, dir, seen, call: <M extends ClientMethod>(m: M, p: ParamsOf<M>) => call(m, p, ctx), waitFor };
}

const text = (t: string) => [{ type: 'text' as const, text: t }];

describe('turn engine', () => {
  it('streams reasoning and text, persists items, reports usage and completes', async () => {
    const model = new ScriptedModel([
      reply(
        { type: 'reasoningDelta', delta: 'think' },
        { type: 'textDelta', delta: 'Hel' },
        { type: 'textDelta', delta: 'lo' },
        { type: 'usage', usage: usage(100) },
        { type: 'done', finishReason: 'stop' },
      ),
    ]);
    const { call, waitFor, seen } = setup(model);
    const { thread } = await call('thread/start', {});
    const { turn } = await call('turn/start', { threadId: thread.id, input: text('hi') });
    const done = await waitFor((n) => n.method === 'turn/completed');
    expect(done.method === 'turn/completed' && done.params.turn.status).toBe('completed');
    const deltas = seen.filter((n) => n.method === 'item/agentMessage/delta').map((n) => (n.params as { delta: string }).delta);
    expect(deltas.join('')).toBe('Hello');
    expect(seen.some((n) => n.method === 'item/reasoning/textDelta')).toBe(true);
    const read = await call('thread/read', { threadId: thread.id, includeTurns: true });
    expect(read.items.map((i: { type: string }) => i.type)).toEqual(['userMessage', 'reasoning', 'agentMessage']);
    expect(read.thread.turns[0]?.id).toBe(turn.id);
    expect(read.thread.turns[0]?.usage?.cachedInputTokens).toBe(5);
    expect(read.thread.preview).toBe('hi');
    expect(read.checkpoint?.reason).toBe('turn_completed');
  });

  it('runs a tool-call loop and sends the results and DeepSeek reasoning back', async () => {
    const model = new ScriptedModel([
      reply(
        { type: 'reasoningDelta', delta: 'I should list files' },
        { type: 'toolCall', call: { id: 'c1', name: 'list_directory', arguments: '{}' } },
        { type: 'done', finishReason: 'tool_calls' },
      ),
      reply({ type: 'textDelta', delta: 'There is a README.' }, { type: 'done', finishReason: 'stop' }),
    ]);
    const { call, waitFor, dir } = setup(model);
    fs.writeFileSync(path.join(dir, 'README.md'), '# hi');
    const { thread } = await call('thread/start', { cwd: dir });
    await call('turn/start', { threadId: thread.id, input: text('what is here?') });
    await waitFor((n) => n.method === 'turn/completed');
    expect(model.requests).toHaveLength(2);
    const second = model.requests[1]!;
    expect(second.messages[1]).toMatchObject({ role: 'assistant', reasoningContent: 'I should list files' });
    expect(second.messages[2]).toMatchObject({ role: 'tool', toolCallId: 'c1' });
    expect((second.messages[2] as { content: string }).content).toContain('README.md');
    // Byte-stable prefix: same instructions and tool list on both requests.
    expect(second.instructions).toBe(model.requests[0]!.instructions);
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(model.requests[0]!.tools));
  });

  it('refuses a second turn/start while one runs, and interrupt ends it as interrupted keeping partial text', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const model = new ScriptedModel([
      async function* (req) {
        yield { type: 'textDelta', delta: 'partial' };
        await new Promise<void>((resolve) => {
          req.signal.addEventListener('abort', () => resolve());
          void gate.then(resolve);
        });
        if (req.signal.aborted) return;
        yield { type: 'done', finishReason: 'stop' };
      },
    ]);
    const { call, waitFor } = setup(model);
    const { thread } = await call('thread/start', {});
    const { turn } = await call('turn/start', { threadId: thread.id, input: text('go') });
    await waitFor((n) => n.method === 'item/agentMessage/delta');
    await expect(call('turn/start', { threadId: thread.id, input: text('again') })).rejects.toMatchObject({ code: -32600 });
    await expect(call('turn/steer', { threadId: thread.id, expectedTurnId: 'wrong', input: text('x') })).rejects.toMatchObject({ code: -32600 });
    await call('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    const done = await waitFor((n) => n.method === 'turn/completed');
    expect(done.method === 'turn/completed' && done.params.turn.status).toBe('interrupted');
    const read = await call('thread/read', { threadId: thread.id });
    expect(read.items.find((i) => i.type === 'agentMessage')).toMatchObject({ text: 'partial' });
    release();
  });

  it('fails the turn with the model error message and keeps partial text', async () => {
    const model = new ScriptedModel([
      async function* () {
        yield { type: 'textDelta', delta: 'half' };
        throw new ModelError('streamInterrupted', 'The connection to the model dropped mid-reply.');
      },
    ]);
    const { call, waitFor } = setup(model);
    const { thread } = await call('thread/start', {});
    await call('turn/start', { threadId: thread.id, input: text('go') });
    const done = await waitFor((n) => n.method === 'turn/completed');
    expect(done.method === 'turn/completed' && done.params.turn).toMatchObject({
      status: 'failed',
      error: { kind: 'streamInterrupted' },
    });
  });

  it('stops at the goal token budget and refuses new turns', async () => {
    const model = new ScriptedModel([
      reply(
        { type: 'toolCall', call: { id: 'c1', name: 'list_directory', arguments: '{}' } },
        { type: 'usage', usage: usage(600) },
        { type: 'done', finishReason: 'tool_calls' },
      ),
    ]);
    const { call, waitFor } = setup(model);
    const { thread } = await call('thread/start', {});
    await call('thread/goal/set', { threadId: thread.id, objective: 'tidy', tokenBudget: 500 });
    await call('turn/start', { threadId: thread.id, input: text('go') });
    const done = await waitFor((n) => n.method === 'turn/completed');
    expect(done.method === 'turn/completed' && done.params.turn.error?.kind).toBe('budgetExhausted');
    expect(model.requests).toHaveLength(1);
    const { goal } = await call('thread/goal/get', { threadId: thread.id });
    expect(goal).toMatchObject({ status: 'budgetLimited', tokensUsed: 600 });
    await expect(call('turn/start', { threadId: thread.id, input: text('more') })).rejects.toThrow(/token budget/);
    await call('thread/goal/set', { threadId: thread.id, tokenBudget: 10_000 });
    expect((await call('thread/goal/get', { threadId: thread.id })).goal?.status).toBe('active');
  });

  it('forks with a marker, rolls back turns, and resumes after a restart with history', async () => {
    const model = new ScriptedModel([
      reply({ type: 'textDelta', delta: 'one' }, { type: 'done', finishReason: 'stop' }),
      reply({ type: 'textDelta', delta: 'two' }, { type: 'done', finishReason: 'stop' }),
      reply({ type: 'textDelta', delta: 'three' }, { type: 'done', finishReason: 'stop' }),
    ]);
    const first = setup(model);
    const { thread } = await first.call('thread/start', {});
    for (const word of ['a', 'b']) {
      await first.call('turn/start', { threadId: thread.id, input: text(word) });
      await first.waitFor((n) => n.method === 'turn/completed' && first.seen.filter((x) => x.method === 'turn/completed').length === (word === 'a' ? 1 : 2));
    }
    const fork = await first.call('thread/fork', { threadId: thread.id });
    expect(fork.thread).toMatchObject({ source: 'appServer', origin: 'fork', forkedFromId: thread.id });
    expect(fork.thread.turns).toHaveLength(2);
    expect(fork.items.at(-1)?.type).toBe('forkMarker');
    const rolled = await first.call('thread/rollback', { threadId: thread.id, numTurns: 1 });
    expect(rolled.thread.turns).toHaveLength(1);
    await expect(first.call('thread/rollback', { threadId: thread.id, numTurns: 5 })).rejects.toMatchObject({ code: -32602 });
    await first.runtime.shutdown();

    const second = setup(model, first.dir);
    const resumed = await second.call('thread/resume', { threadId: thread.id });
    expect(resumed.thread.turns).toHaveLength(1);
    await second.call('turn/start', { threadId: thread.id, input: text('c') });
    await second.waitFor((n) => n.method === 'turn/completed');
    const history = model.requests.at(-1)!.messages.map((m) => `${m.role}:${'content' in m ? m.content : ''}`);
    expect(history).toEqual(['user:a', 'assistant:one', 'user:c']);
  });
});

describe('working folders', () => {
  it('refuses a thread or turn in a folder that does not exist, and creates nothing', async () => {
    const { call } = setup(new ScriptedModel([]));
    const before = await call('thread/list', {});
    await expect(call('thread/start', { cwd: '/definitely/not/here' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('cwd: folder does not exist: /definitely/not/here'),
    });
    expect((await call('thread/list', {})).data).toHaveLength(before.data.length);
    const { thread } = await call('thread/start', {});
    await expect(call('turn/start', { threadId: thread.id, input: text('hi'), cwd: '/nope' })).rejects.toMatchObject({ code: -32602 });
    expect((await call('thread/read', { threadId: thread.id })).items).toHaveLength(0);
  });
});

describe('steering', () => {
  it('a steer during a tool-calling reply lands after the tool results, keeping reasoning with its tool calls', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const model = new ScriptedModel([
      async function* () {
        yield { type: 'reasoningDelta', delta: 'look first' };
        await gate;
        yield { type: 'toolCall', call: { id: 'c1', name: 'list_directory', arguments: '{}' } };
        yield { type: 'done', finishReason: 'tool_calls' };
      },
      reply({ type: 'textDelta', delta: 'ok, in Python' }, { type: 'done', finishReason: 'stop' }),
    ]);
    const { call, waitFor } = setup(model);
    const { thread } = await call('thread/start', {});
    const { turn } = await call('turn/start', { threadId: thread.id, input: text('write it') });
    await waitFor((n) => n.method === 'item/reasoning/textDelta');
    await call('turn/steer', { threadId: thread.id, expectedTurnId: turn.id, input: text('use Python') });
    release();
    await waitFor((n) => n.method === 'turn/completed');
    const roles = model.requests[1]!.messages.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(model.requests[1]!.messages[1]).toMatchObject({ reasoningContent: 'look first' });
    const { items } = await call('thread/read', { threadId: thread.id });
    expect(items.map((i: { type: string }) => i.type)).toEqual(['userMessage', 'reasoning', 'dynamicToolCall', 'userMessage', 'agentMessage']);
  });

  it('refuses a steer once the turn is stopping, and keeps unseen steer input when a turn is stopped', async () => {
    const model = new ScriptedModel([
      async function* (req) {
        yield { type: 'textDelta', delta: 'working' };
        await new Promise<void>((resolve) => req.signal.addEventListener('abort', () => resolve()));
      },
    ]);
    const { call, waitFor } = setup(model);
    const { thread } = await call('thread/start', {});
    const { turn } = await call('turn/start', { threadId: thread.id, input: text('go') });
    await waitFor((n) => n.method === 'item/agentMessage/delta');
    await call('turn/steer', { threadId: thread.id, expectedTurnId: turn.id, input: text('also this') });
    const stopping = call('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    await expect(call('turn/steer', { threadId: thread.id, expectedTurnId: turn.id, input: text('late') })).rejects.toMatchObject({ code: -32600 });
    await stopping;
    const { items } = await call('thread/read', { threadId: thread.id });
    expect(items.filter((i: { type: string }) => i.type === 'userMessage')).toHaveLength(2);
  });
});
