import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createModelClient } from '../../../electron/model/create-model-client.js';
import { createTestRuntime } from '../../../test-support/test-runtime.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { RpcHost } from '../../../electron/server/rpc-host.js';
import { createGate, startMockModelServer, type MockModelServer } from '../../../test-support/mock-model/index.js';
import { mockProvider } from '../../../test-support/mock-model/model-test-kit.js';
import type { WireApi } from '../../../electron/model/types.js';
import type { ClosableTransport } from '../client/websocket-transport.js';
import { WheelhouseClient } from '../client/wheelhouse-client.js';
import { createConversationStore } from './conversation-store.js';
import type { FrameScheduler } from './frame-batcher.js';

/**
 * The conversation store against a real runtime and the mock model, over an
 * in-memory carrier that a test can cut: what the window sees while a reply
 * streams, and after the link drops mid-reply.
 */

let mock: MockModelServer;
beforeAll(async () => {
  mock = await startMockModelServer();
});
afterAll(async () => {
  await mock.close();
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Frames run only when the test says so, so it can count commits per frame. */
function manualFrames(): FrameScheduler & { run(): void } {
  let pending: Array<() => void> = [];
  return {
    requestFrame: (callback) => {
      pending.push(callback);
      return () => (pending = pending.filter((c) => c !== callback));
    },
    requestTimeout: () => () => undefined,
    run: () => {
      const due = pending;
      pending = [];
      for (const callback of due) callback();
    },
  };
}

function setup(wire: WireApi = 'chat') {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'wh-conv-store-'));
  const provider = mockProvider(mock, wire);
  const runtime = createTestRuntime({
    home,
    defaults: { cwd: home },
    bindModel: async () => ({ client: createModelClient(provider), model: 'deepseek-chat', contextWindow: 128_000 }),
  });
  const host = new RpcHost(runtime);
  /** Cuts the current link, as a dropped WebSocket would. */
  let cut: () => void = () => undefined;
  /** While set, reconnecting fails (the network is still down). */
  const offline = { value: false };
  const connector = async (): Promise<ClosableTransport> => {
    if (offline.value) throw new Error('offline');
    const messages = new Set<(text: string) => void>();
    const closes = new Set<(reason: string) => void>();
    let open = true;
    const connection = host.connect('in-process', {
      send: (text) => queueMicrotask(() => open && messages.forEach((listener) => listener(text))),
    });
    const close = () => {
      if (!open) return;
      open = false;
      host.disconnect(connection);
      closes.forEach((listener) => listener('cut'));
    };
    cut = close;
    return {
      send: (text) => void (open && connection.receive(text)),
      onMessage: (listener) => (messages.add(listener), () => messages.delete(listener)),
      onClose: (listener) => (closes.add(listener), () => closes.delete(listener)),
      close,
    };
  };
  const client = new WheelhouseClient({ connector, reconnect: true, clientVersion: 'test' });
  const frames = manualFrames();
  const store = createConversationStore(client, frames);
  client.start();
  cleanups.push(async () => {
    client.stop();
    host.close();
    await runtime.shutdown();
    fs.rmSync(home, { recursive: true, force: true });
  });

  /** Lets the runtime and the link work (running frames unless told not to) until `check` holds. */
  const until = (check: () => boolean, what: string, runFrames = true) =>
    waitUntil(
      () => {
        if (runFrames) frames.run();
        return check();
      },
      { what, intervalMs: 0 },
    );
  const connected = () => until(() => client.getSnapshot().status === 'connected', 'connected');
  const agentText = () => {
    const { data } = store.getState();
    return data.order
      .map((id) => data.items.get(id))
      .filter((item) => item?.type === 'agentMessage')
      .map((item) => (item?.type === 'agentMessage' ? item.text : ''))
      .join('|');
  };
  return { runtime, client, store, frames, until, connected, agentText, offline, cut: () => cut() };
}

describe('the conversation store', () => {
  it('applies a token stream once per frame, not once per token', async () => {
    const { client, store, frames, until, connected, agentText } = setup();
    await connected();
    const { thread } = await client.request('thread/start', {});
    await store.getState().open(thread.id);
    expect(store.getState().load).toBe('ready');

    const tokens = Array.from({ length: 200 }, (_, i) => ({ type: 'text' as const, text: `t${i} ` }));
    const gate = createGate();
    mock.enqueue([...tokens, { type: 'waitFor', release: gate.promise }, { type: 'finish' }]);
    let deltas = 0;
    client.on('item/agentMessage/delta', () => (deltas += 1));
    let commits = 0;
    const unsubscribe = store.subscribe(() => (commits += 1));
    expect(await store.getState().send('count to 200')).toBe(true);

    // Let every delta arrive without running a frame: nothing is applied yet.
    await until(() => deltas === 200, 'all deltas received', false);
    const before = commits;
    frames.run();
    expect(commits - before).toBe(1);
    expect(agentText()).toBe(tokens.map((t) => t.text).join(''));
    expect(store.getState().activeTurnId).not.toBeNull();
    gate.release();
    await until(() => store.getState().activeTurnId === null, 'turn completed');
    unsubscribe();
  });

  it('after a drop mid-reply, refetches and replays what it missed: the reply is whole and nothing doubles', async () => {
    const { client, store, until, connected, agentText, cut } = setup();
    await connected();
    const { thread } = await client.request('thread/start', {});
    await store.getState().open(thread.id);
    const whileAway = createGate();
    const end = createGate();
    mock.enqueue([
      { type: 'text', text: 'Before the drop. ' },
      { type: 'waitFor', release: whileAway.promise },
      { type: 'text', text: 'While away. ' },
      { type: 'waitFor', release: end.promise },
      { type: 'text', text: 'After.' },
      { type: 'finish' },
    ]);
    await store.getState().send('go');
    await until(() => agentText() === 'Before the drop. ', 'first part shown');

    cut();
    await until(() => client.getSnapshot().status !== 'connected', 'link down');
    whileAway.release();
    // The reconnect brings the text streamed while away, while the reply is still running.
    await until(() => client.getSnapshot().status === 'connected' && agentText() === 'Before the drop. While away. ', 'missed part replayed');
    expect(store.getState().activeTurnId).not.toBeNull();

    end.release();
    await until(() => store.getState().activeTurnId === null, 'turn completed');
    expect(agentText()).toBe('Before the drop. While away. After.');
    const rows = store.getState().rows;
    expect(rows.filter((r) => r.kind === 'turnEnd')).toHaveLength(1);
    expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
  });

  it('after a drop longer than the log keeps deltas, reloads the thread instead of showing a reply with a hole', async () => {
    const { runtime, client, store, until, connected, agentText, offline, cut } = setup();
    await connected();
    const { thread } = await client.request('thread/start', {});
    await store.getState().open(thread.id);
    const whileAway = createGate();
    const end = createGate();
    mock.enqueue([
      { type: 'text', text: 'Before the drop. ' },
      { type: 'waitFor', release: whileAway.promise },
      { type: 'text', text: 'While away. ' },
      { type: 'waitFor', release: end.promise },
      { type: 'text', text: 'After.' },
      { type: 'finish' },
    ]);
    await store.getState().send('go');
    await until(() => agentText() === 'Before the drop. ', 'first part shown');

    let missedDelta = false;
    runtime.events.subscribe((n) => (missedDelta ||= n.method === 'item/agentMessage/delta' && JSON.stringify(n.params).includes('While away')));
    offline.value = true;
    cut();
    await until(() => client.getSnapshot().status !== 'connected', 'link down');
    whileAway.release();
    await until(() => missedDelta, 'the runtime streamed on while the window was away');
    // Two days pass while away: the log drops the token deltas this window missed.
    runtime.events.prune(Date.now() + 2 * 24 * 60 * 60 * 1000);
    offline.value = false;
    client.retryNow();
    // Reloaded from thread/read, which has the reply streamed so far: whole, and the turn still runs.
    await until(() => client.getSnapshot().status === 'connected' && agentText() === 'Before the drop. While away. ', 'reloaded with the text so far');
    expect(store.getState().activeTurnId).not.toBeNull();

    end.release();
    await until(() => store.getState().activeTurnId === null, 'turn completed');
    expect(agentText()).toBe('Before the drop. While away. After.');
  });

  it('opened mid-reply (a reloaded window), shows the text so far once and goes on streaming', async () => {
    const { client, store, until, connected, agentText } = setup();
    await connected();
    const { thread } = await client.request('thread/start', {});
    const tokens = Array.from({ length: 200 }, (_, i) => ({ type: 'text' as const, text: `t${i} ` }));
    const gate = createGate();
    mock.enqueue([...tokens, { type: 'waitFor', release: gate.promise }, { type: 'text', text: 'End.' }, { type: 'finish' }]);
    // The window opens the thread at the first token: the rest stream while thread/resume is answered.
    let opened: Promise<void> | undefined;
    client.on('item/agentMessage/delta', () => void (opened ??= store.getState().open(thread.id)));
    await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'count' }] });
    const whole = tokens.map((t) => t.text).join('');
    await until(() => opened !== undefined && store.getState().load === 'ready' && agentText().length >= whole.length, 'the text so far shown');
    expect(agentText()).toBe(whole);
    expect(store.getState().activeTurnId).not.toBeNull();

    gate.release();
    await until(() => store.getState().activeTurnId === null, 'turn completed');
    expect(agentText()).toBe(`${whole}End.`);
  });

  it.each(['responses', 'chat'] as const)('shows the reasoning (%s wire) while it streams and once, whole, after the turn', async (wire) => {
    const { client, store, until, connected } = setup(wire);
    await connected();
    const { thread } = await client.request('thread/start', {});
    await store.getState().open(thread.id);
    const gate = createGate();
    mock.enqueue([
      { type: 'reasoning', text: 'Weighing ' },
      { type: 'reasoning', text: 'the options.' },
      { type: 'waitFor', release: gate.promise },
      { type: 'text', text: 'Done.' },
      { type: 'finish' },
    ]);
    const reasoning = () => {
      const { data } = store.getState();
      const item = data.order.map((id) => data.items.get(id)).find((i) => i?.type === 'reasoning');
      return item?.type === 'reasoning' ? item : null;
    };
    expect(await store.getState().send('think first')).toBe(true);
    await until(() => reasoning()?.streaming === true && [...(reasoning()?.summary ?? []), ...(reasoning()?.content ?? [])].join('') === 'Weighing the options.', 'reasoning streamed');
    // A Responses reasoning summary is Codex's `summary`; Chat's reasoning_content is raw reasoning (`content`).
    const parts = wire === 'responses' ? { summary: ['Weighing the options.'], content: [] } : { summary: [], content: ['Weighing the options.'] };
    expect(reasoning()).toMatchObject(parts);
    gate.release();
    await until(() => store.getState().activeTurnId === null, 'turn completed');
    expect(reasoning()).toMatchObject({ ...parts, streaming: false });
  });

  it('rolls back the last turn and shows the thread without it', async () => {
    const { client, store, until, connected, agentText } = setup();
    await connected();
    const { thread } = await client.request('thread/start', {});
    await store.getState().open(thread.id);
    mock.enqueue([{ type: 'text', text: 'One.' }, { type: 'finish' }], [{ type: 'text', text: 'Two.' }, { type: 'finish' }]);
    await store.getState().send('first');
    await until(() => agentText() === 'One.' && store.getState().activeTurnId === null, 'first turn');
    await store.getState().send('second');
    await until(() => agentText() === 'One.|Two.' && store.getState().activeTurnId === null, 'second turn');

    await store.getState().rollbackLastTurn(thread.id);
    expect(agentText()).toBe('One.');
    expect(store.getState().data.turns.size).toBe(1);
  });
  it('shows a tool call (a Codex dynamicToolCall item) with its output, and a fork with its marker', async () => {
    const { client, store, until, connected, agentText } = setup();
    await connected();
    const { thread } = await client.request('thread/start', {});
    await store.getState().open(thread.id);
    mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'call_1', name: 'list_directory', arguments: '{}' }] }, { type: 'finish', reason: 'tool_calls' }],
      [{ type: 'text', text: 'Listed.' }, { type: 'finish' }],
    );
    await store.getState().send('what is here?');
    await until(() => agentText() === 'Listed.' && store.getState().activeTurnId === null, 'tool turn');
    const items = () => store.getState().data.order.map((id) => store.getState().data.items.get(id)!);
    const tool = items().find((item) => item.type === 'dynamicToolCall');
    expect(tool).toMatchObject({ tool: 'list_directory', status: 'completed', success: true, streaming: false });
    expect(tool?.type === 'dynamicToolCall' && tool.contentItems?.[0]?.text).toBe(tool?.type === 'dynamicToolCall' && tool.output);

    const fork = await client.request('thread/fork', { threadId: thread.id });
    await store.getState().open(fork.thread.id);
    expect(items().map((item) => item.type)).toEqual(['userMessage', 'dynamicToolCall', 'agentMessage', 'forkMarker']);
    expect(items().at(-1)).toMatchObject({ fromThreadId: thread.id });
  });
});
