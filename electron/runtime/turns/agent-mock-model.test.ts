import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResolvedProvider, WireApi } from '../../model/types.js';
import { createGate } from '../../../test-support/mock-model/index.js';
import { textInput as text, useMockAgentKit } from '../../../test-support/mock-agent-kit.js';

/**
 * The agent end to end through the real model clients and a local mock
 * provider that streams both wires: what a user sees in the conversation.
 */
const kit = useMockAgentKit();
const agent = (wire: WireApi, provider: Partial<ResolvedProvider> = {}) => kit.agent({ wire, provider, homePrefix: 'wh-agent-' });

describe.each(['chat', 'responses'] as const)('agent over the %s wire', (wire) => {
  it('streams reasoning and text and carries multi-turn history', async () => {
    const a = agent(wire);
    kit.mock.enqueue(
      [{ type: 'reasoning', text: 'Thinking it over.' }, { type: 'text', text: 'First answer.' }, { type: 'finish', usage: { inputTokens: 50, outputTokens: 10, cachedInputTokens: 32 } }],
      [{ type: 'text', text: 'Second answer.' }, { type: 'finish' }],
    );
    const before = kit.mock.requests.length;
    const thread = await a.startThread();
    const { turn: first } = await a.runTurn(thread.id, 'one');
    expect(first.status).toBe('completed');
    expect(first.usage?.cachedInputTokens).toBe(32);
    // As Codex: a Responses reasoning summary streams as summary parts; Chat's reasoning_content is raw reasoning.
    const methods = a.seen.map((n) => n.method);
    const { items } = await a.call('thread/read', { threadId: thread.id });
    const reasoning = items.find((i) => i.type === 'reasoning');
    if (wire === 'responses') {
      expect(methods).toContain('item/reasoning/summaryPartAdded');
      expect(methods).toContain('item/reasoning/summaryTextDelta');
      expect(methods).not.toContain('item/reasoning/textDelta');
      expect(reasoning).toMatchObject({ summary: ['Thinking it over.'], content: [] });
    } else {
      expect(methods).toContain('item/reasoning/textDelta');
      expect(methods).not.toContain('item/reasoning/summaryTextDelta');
      expect(reasoning).toMatchObject({ summary: [], content: ['Thinking it over.'] });
    }
    const completedReasoning = a.seen.find((n) => n.method === 'item/completed' && n.params.item.type === 'reasoning');
    expect(completedReasoning?.method === 'item/completed' && completedReasoning.params.item).toEqual(reasoning);
    await a.runTurn(thread.id, 'two');
    const body = JSON.stringify(kit.mock.requests[before + 1]!.body);
    expect(body).toContain('one');
    expect(body).toContain('First answer.');
    expect(body).toContain('two');
    const usage = a.seen.filter((n) => n.method === 'thread/tokenUsage/updated').at(-1);
    expect(usage?.method === 'thread/tokenUsage/updated' && usage.params.tokenUsage.total.inputTokens).toBeGreaterThanOrEqual(50);
  });

  it('runs a tool-call loop against the project folder', async () => {
    const a = agent(wire);
    fs.writeFileSync(path.join(a.home, 'notes.txt'), 'the secret word is heron');
    kit.mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"notes.txt"}' }] }, { type: 'finish' }],
      [{ type: 'text', text: 'The word is heron.' }, { type: 'finish' }],
    );
    const before = kit.mock.requests.length;
    const thread = await a.startThread({ cwd: a.home });
    expect((await a.runTurn(thread.id, 'read notes.txt')).turn.status).toBe('completed');
    expect(JSON.stringify(kit.mock.requests[before + 1]!.body)).toContain('heron');
    const { items } = await a.call('thread/read', { threadId: thread.id });
    expect(items.find((i: { type: string }) => i.type === 'dynamicToolCall')).toMatchObject({ tool: 'read_file', status: 'completed', success: true });
  });

  it('steers the running turn: the steer text reaches the next model request', async () => {
    const a = agent(wire);
    const gate = createGate();
    kit.mock.enqueue(
      [{ type: 'text', text: 'Working on it' }, { type: 'waitFor', release: gate.promise }, { type: 'text', text: '...' }, { type: 'finish' }],
      [{ type: 'text', text: 'Switched to Python.' }, { type: 'finish' }],
    );
    const before = kit.mock.requests.length;
    const thread = await a.startThread();
    const { turn } = await a.call('turn/start', { threadId: thread.id, input: text('write it in Go') });
    await kit.mock.waitForRequests(before + 1);
    await a.call('turn/steer', { threadId: thread.id, expectedTurnId: turn.id, input: text('actually use Python') });
    gate.release();
    expect((await a.completed()).status).toBe('completed');
    expect(kit.mock.requests.length).toBe(before + 2);
    expect(JSON.stringify(kit.mock.requests[before + 1]!.body)).toContain('actually use Python');
  });

  it('interrupts mid-stream: the model connection closes, partial text is kept, the turn ends interrupted', async () => {
    const a = agent(wire);
    const gate = createGate();
    kit.mock.enqueue([{ type: 'text', text: 'Partial reply' }, { type: 'waitFor', release: gate.promise }, { type: 'finish' }]);
    const before = kit.mock.requests.length;
    const thread = await a.startThread();
    const { turn } = await a.call('turn/start', { threadId: thread.id, input: text('long task') });
    await a.waitFor((n) => n.method === 'item/agentMessage/delta', 0, 'the first text of the reply');
    await a.call('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    expect((await a.completed()).status).toBe('interrupted');
    expect(await kit.mock.requests[before]!.outcome).toBe('clientClosed');
    const { items } = await a.call('thread/read', { threadId: thread.id });
    expect(items.find((i) => i.type === 'agentMessage')).toMatchObject({ text: 'Partial reply' });
    gate.release();
  });
});

describe('failures a user meets, each a clear message and never a hung turn', () => {
  const cases = [
    { name: 'key rejected', script: [{ type: 'httpError' as const, status: 401 }], kind: 'unauthorized', message: /key/i },
    { name: 'server error', script: [{ type: 'httpError' as const, status: 500 }], kind: 'serverError', message: /./ },
    { name: 'stream cut mid-reply', script: [{ type: 'text' as const, text: 'Half a rep' }, { type: 'cut' as const }], kind: 'streamInterrupted', message: /./ },
    { name: 'malformed chunk', script: [{ type: 'text' as const, text: 'ok' }, { type: 'malformed' as const }], kind: 'badResponse', message: /./ },
  ];
  for (const c of cases) {
    it(`${c.name} -> ${c.kind}`, async () => {
      const a = agent('chat');
      kit.mock.enqueue(c.script);
      const thread = await a.startThread();
      const { turn } = await a.runTurn(thread.id, 'hello');
      expect(turn.status).toBe('failed');
      expect(turn.error).toMatchObject({ kind: c.kind });
      expect(turn.error!.message).toMatch(c.message);
      // As Codex: the failure shows on the thread, is announced on its own (not to be retried), leaves
      // the thread unread, and then the turn ends with it.
      const methods = a.seen.map((n) => n.method);
      const error = a.seen.find((n) => n.method === 'error');
      expect(error?.params).toEqual({ threadId: thread.id, turnId: turn.id, error: turn.error, willRetry: false });
      const at = methods.indexOf('error');
      expect(methods.slice(at - 1, at + 3)).toEqual(['thread/status/changed', 'error', 'thread/readState/changed', 'turn/completed']);
      if (c.name === 'stream cut mid-reply') {
        expect(turn.error?.codexErrorInfo).toBe('other');
        const { items } = await a.call('thread/read', { threadId: thread.id });
        expect(items.find((i) => i.type === 'agentMessage')).toMatchObject({ text: 'Half a rep' });
      }
    });
  }

  it('idle stream -> timeout', async () => {
    const a = agent('chat', { streamIdleTimeoutMs: 300 });
    kit.mock.enqueue([{ type: 'text', text: 'hm' }, { type: 'stall' }]);
    const thread = await a.startThread();
    expect((await a.runTurn(thread.id, 'hello')).turn.error).toMatchObject({ kind: 'timeout' });
  });

  it('rate limit is retried with backoff, then the reply arrives', async () => {
    const a = agent('chat', { requestMaxRetries: 2 });
    kit.mock.enqueue([{ type: 'httpError', status: 429, retryAfter: '0' }], [{ type: 'text', text: 'Made it.' }, { type: 'finish' }]);
    const thread = await a.startThread();
    expect((await a.runTurn(thread.id, 'hello')).turn.status).toBe('completed');
    expect(a.seen.some((n) => n.method === 'turn/retrying')).toBe(true);
  });

  it("a stream that drops before any output reconnects, announced as Codex's error with willRetry", async () => {
    const a = agent('responses', { streamMaxRetries: 2 });
    kit.mock.enqueue([{ type: 'cut' }], [{ type: 'text', text: 'Back again.' }, { type: 'finish' }]);
    const thread = await a.startThread();
    const { turn } = await a.runTurn(thread.id, 'hello');
    expect(turn.status).toBe('completed');
    const errors = a.seen.flatMap((n) => (n.method === 'error' ? [n.params] : []));
    expect(errors).toEqual([
      {
        threadId: thread.id,
        turnId: turn.id,
        willRetry: true,
        error: expect.objectContaining({
          message: 'Reconnecting... 1/2',
          codexErrorInfo: { responseStreamDisconnected: { httpStatusCode: null } },
          additionalDetails: expect.stringMatching(/./),
        }),
      },
    ]);
  });

  it('a request retried after an HTTP failure is not a stream reconnect: no error notification', async () => {
    const a = agent('chat', { requestMaxRetries: 1 });
    kit.mock.enqueue([{ type: 'httpError', status: 503, retryAfter: '0' }], [{ type: 'text', text: 'Made it.' }, { type: 'finish' }]);
    const thread = await a.startThread();
    expect((await a.runTurn(thread.id, 'hello')).turn.status).toBe('completed');
    expect(a.seen.map((n) => n.method)).toContain('turn/retrying');
    expect(a.seen.map((n) => n.method)).not.toContain('error');
  });

  it('rate limit that never clears -> rateLimited', async () => {
    const a = agent('chat', { requestMaxRetries: 1 });
    kit.mock.enqueue([{ type: 'httpError', status: 429, retryAfter: '0' }], [{ type: 'httpError', status: 429, retryAfter: '0' }]);
    const thread = await a.startThread();
    expect((await a.runTurn(thread.id, 'hello')).turn.error).toMatchObject({ kind: 'rateLimited' });
  });
});
