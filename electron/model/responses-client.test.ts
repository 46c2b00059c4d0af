import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockModelServer, type MockModelServer } from '../../test-support/mock-model/index.js';
import { collectStream, mockProvider, reasoningOf, textOf, userRequest } from '../../test-support/mock-model/model-test-kit.js';
import { ResponsesClient } from './responses-client.js';
import type { ModelMessage, ModelToolSpec } from './types.js';

const TOOLS: ModelToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a file in the workspace.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

let mock: MockModelServer;
beforeEach(async () => {
  mock = await startMockModelServer();
});
afterEach(async () => {
  await mock.close();
});

describe('ResponsesClient', () => {
  it('streams reasoning summary, then text, then usage with cached tokens, then done', async () => {
    mock.enqueue([
      { type: 'reasoning', text: 'Plan: ' },
      { type: 'reasoning', text: 'greet back.' },
      { type: 'text', text: 'Hi' },
      { type: 'text', text: ' there!' },
      { type: 'finish', usage: { inputTokens: 900, cachedInputTokens: 768, outputTokens: 50, reasoningTokens: 32 } },
    ]);
    const client = new ResponsesClient(mockProvider(mock, 'responses'));

    const { events, error } = await collectStream(client.stream(userRequest('hello', { model: 'gpt-5' })));

    expect(error).toBeNull();
    expect(events.map((e) => e.type)).toEqual(['reasoningDelta', 'reasoningDelta', 'textDelta', 'textDelta', 'usage', 'done']);
    expect(reasoningOf(events)).toBe('Plan: greet back.');
    expect(textOf(events)).toBe('Hi there!');
    expect(events.at(-2)).toEqual({
      type: 'usage',
      usage: { inputTokens: 900, cachedInputTokens: 768, cacheWriteInputTokens: 0, outputTokens: 50, reasoningOutputTokens: 32, totalTokens: 950 },
    });
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'stop' });

    const [request] = mock.requests;
    expect(request?.path).toBe('/v1/responses');
    expect(request?.headers.authorization).toBe('Bearer sk-mock-key');
    expect(request?.body).toEqual({
      model: 'gpt-5',
      instructions: 'You are a careful coding agent.',
      reasoning: { summary: 'auto' },
      store: false,
      stream: true,
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] }],
    });
  });

  it('streams raw reasoning_text deltas (open-weight servers) as reasoning', async () => {
    mock.enqueue([{ type: 'reasoning', text: 'thinking out loud', format: 'raw' }, { type: 'text', text: 'answer' }, { type: 'finish' }]);
    const client = new ResponsesClient(mockProvider(mock, 'responses'));

    const { events } = await collectStream(client.stream(userRequest('q', { model: 'local-model' })));

    expect(reasoningOf(events)).toBe('thinking out loud');
    expect(textOf(events)).toBe('answer');
    expect(mock.requests[0]?.body).not.toHaveProperty('reasoning');
  });

  it('yields each finished function_call item as a tool call', async () => {
    mock.enqueue([
      {
        type: 'toolCalls',
        calls: [
          { id: 'call_x', name: 'read_file', arguments: '{"path":"a.ts"}', argumentChunks: 3 },
          { id: 'call_y', name: 'read_file', arguments: '{"path":"b.ts"}' },
        ],
      },
      { type: 'finish', usage: { inputTokens: 5, outputTokens: 6 } },
    ]);
    const client = new ResponsesClient(mockProvider(mock, 'responses'));

    const { events, error } = await collectStream(client.stream(userRequest('read both', { tools: TOOLS })));

    expect(error).toBeNull();
    expect(events).toEqual([
      { type: 'toolCall', call: { id: 'call_x', name: 'read_file', arguments: '{"path":"a.ts"}' } },
      { type: 'toolCall', call: { id: 'call_y', name: 'read_file', arguments: '{"path":"b.ts"}' } },
      { type: 'usage', usage: { inputTokens: 5, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 6, reasoningOutputTokens: 0, totalTokens: 11 } },
      { type: 'done', finishReason: 'tool_calls' },
    ]);
    expect(mock.requests[0]?.body?.tools).toEqual([
      { type: 'function', name: 'read_file', description: 'Read a file in the workspace.', parameters: TOOLS[0]?.parameters, strict: false },
    ]);
  });

  it('maps history to input items: messages, function calls and their outputs', async () => {
    mock.enqueue([{ type: 'text', text: 'ok' }, { type: 'finish' }]);
    const client = new ResponsesClient(mockProvider(mock, 'responses'));
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Read a.ts' },
      {
        role: 'assistant',
        content: 'Reading it.',
        reasoningContent: 'not replayed on this wire',
        toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' }],
      },
      { role: 'tool', toolCallId: 'call_1', name: 'read_file', content: 'export {}' },
      { role: 'assistant', content: 'It is empty.' },
      { role: 'user', content: 'Thanks' },
    ];

    await collectStream(client.stream(userRequest('', { messages, model: 'local-model' })));

    expect(mock.requests[0]?.body?.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read a.ts' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading it.' }] },
      { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'export {}' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It is empty.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
    ]);
  });

  it('keeps the serialized prompt prefix byte-identical across requests of one thread', async () => {
    mock.enqueue([{ type: 'text', text: 'a' }, { type: 'finish' }], [{ type: 'text', text: 'b' }, { type: 'finish' }]);
    const client = new ResponsesClient(mockProvider(mock, 'responses'));
    const first: ModelMessage[] = [{ role: 'user', content: 'one' }];
    const second: ModelMessage[] = [...first, { role: 'assistant', content: 'a' }, { role: 'user', content: 'two' }];

    await collectStream(client.stream(userRequest('', { messages: first, tools: TOOLS })));
    await collectStream(client.stream(userRequest('', { messages: second, tools: TOOLS })));

    const [a, b] = mock.requests.map((r) => r.rawBody);
    expect(a).toContain('"instructions":"You are a careful coding agent.","tools":[');
    expect(b?.startsWith(a?.slice(0, -2) ?? '<missing>')).toBe(true);
  });

  it('reports a response that stopped at the output limit as finish reason "length"', async () => {
    mock.enqueue([{ type: 'text', text: 'partial ans' }, { type: 'finish', reason: 'length', usage: { inputTokens: 1, outputTokens: 2 } }]);
    const client = new ResponsesClient(mockProvider(mock, 'responses'));

    const { events } = await collectStream(client.stream(userRequest('long')));

    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'length' });
  });

  it('turns response.failed and error events into ModelErrors, keeping earlier text', async () => {
    mock.enqueue(
      [{ type: 'text', text: 'Half' }, { type: 'providerError', message: 'The model crashed.', responsesAs: 'failed' }],
      [{ type: 'providerError', message: 'Slow down.', code: 'rate_limit_exceeded', responsesAs: 'error' }],
    );
    const client = new ResponsesClient(mockProvider(mock, 'responses', { requestMaxRetries: 3, streamMaxRetries: 3 }));

    const failed = await collectStream(client.stream(userRequest('a')));
    const errored = await collectStream(client.stream(userRequest('b')));

    expect(textOf(failed.events)).toBe('Half');
    expect(failed.error).toMatchObject({ kind: 'serverError', details: 'The model crashed.' });
    expect(errored.error).toMatchObject({ kind: 'rateLimited', details: 'Slow down.' });
    // Errors the provider reports inside a stream are not retried.
    expect(mock.requests).toHaveLength(2);
  });
});
