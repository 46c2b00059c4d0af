import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockModelServer, type MockModelServer } from '../../test-support/mock-model/index.js';
import { collectStream, mockProvider, reasoningOf, textOf, userRequest } from '../../test-support/mock-model/model-test-kit.js';
import { ChatCompletionsClient } from './chat-completions-client.js';
import type { ModelMessage, ModelToolSpec } from './types.js';

const TOOLS: ModelToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a file in the workspace.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'run_command',
    description: 'Run a shell command.',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
];

let mock: MockModelServer;
beforeEach(async () => {
  mock = await startMockModelServer();
});
afterEach(async () => {
  await mock.close();
});

describe('ChatCompletionsClient', () => {
  it('streams DeepSeek reasoning, then text, then usage with cache hits, then done', async () => {
    mock.enqueue([
      { type: 'reasoning', text: 'The user greets; ' },
      { type: 'reasoning', text: 'answer briefly.' },
      { type: 'text', text: 'Hello' },
      { type: 'text', text: ', world.' },
      {
        type: 'finish',
        usage: { inputTokens: 120, cachedInputTokens: 64, outputTokens: 30, reasoningTokens: 12, style: 'deepseek' },
      },
    ]);
    const client = new ChatCompletionsClient(mockProvider(mock, 'chat'));

    const { events, error } = await collectStream(client.stream(userRequest('hi')));

    expect(error).toBeNull();
    expect(events.map((e) => e.type)).toEqual([
      'reasoningDelta',
      'reasoningDelta',
      'textDelta',
      'textDelta',
      'usage',
      'done',
    ]);
    expect(reasoningOf(events)).toBe('The user greets; answer briefly.');
    expect(textOf(events)).toBe('Hello, world.');
    expect(events.at(-2)).toEqual({
      type: 'usage',
      usage: { inputTokens: 120, cachedInputTokens: 64, cacheWriteInputTokens: 0, outputTokens: 30, reasoningOutputTokens: 12, totalTokens: 150 },
    });
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'stop' });

    const [request] = mock.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-mock-key');
    expect(request?.body).toMatchObject({
      model: 'deepseek-chat',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are a careful coding agent.' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(request?.body).not.toHaveProperty('tools');
  });

  it('reads OpenAI-style cached and reasoning token counts', async () => {
    mock.enqueue([
      { type: 'text', text: 'ok' },
      { type: 'finish', usage: { inputTokens: 2_000, cachedInputTokens: 1_536, outputTokens: 40, reasoningTokens: 8 } },
    ]);
    const client = new ChatCompletionsClient(mockProvider(mock, 'chat'));

    const { events } = await collectStream(client.stream(userRequest('hi')));

    expect(events.find((e) => e.type === 'usage')).toEqual({
      type: 'usage',
      usage: { inputTokens: 2_000, cachedInputTokens: 1_536, cacheWriteInputTokens: 0, outputTokens: 40, reasoningOutputTokens: 8, totalTokens: 2_040 },
    });
  });

  it('assembles two parallel tool calls whose argument fragments interleave', async () => {
    mock.enqueue([
      { type: 'text', text: 'Let me look.' },
      {
        type: 'toolCalls',
        interleave: true,
        calls: [
          { id: 'call_a', name: 'read_file', arguments: '{"path":"src/index.ts"}', argumentChunks: 4 },
          { id: 'call_b', name: 'run_command', arguments: '{"command":"npm test -- --run"}', argumentChunks: 5 },
        ],
      },
      { type: 'finish', usage: { inputTokens: 10, outputTokens: 20 } },
    ]);
    const client = new ChatCompletionsClient(mockProvider(mock, 'chat'));

    const { events, error } = await collectStream(client.stream(userRequest('check', { tools: TOOLS })));

    expect(error).toBeNull();
    expect(events.filter((e) => e.type !== 'textDelta')).toEqual([
      { type: 'toolCall', call: { id: 'call_a', name: 'read_file', arguments: '{"path":"src/index.ts"}' } },
      { type: 'toolCall', call: { id: 'call_b', name: 'run_command', arguments: '{"command":"npm test -- --run"}' } },
      { type: 'usage', usage: { inputTokens: 10, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 20, reasoningOutputTokens: 0, totalTokens: 30 } },
      { type: 'done', finishReason: 'tool_calls' },
    ]);
  });

  it('maps history: tool calls with DeepSeek reasoning_content, tool results, tools', async () => {
    mock.enqueue([{ type: 'text', text: 'done' }, { type: 'finish' }]);
    const client = new ChatCompletionsClient(mockProvider(mock, 'chat'));
    const messages: ModelMessage[] = [
      { role: 'user', content: 'What is in the README?' },
      {
        role: 'assistant',
        content: '',
        reasoningContent: 'I should read the README first.',
        toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"README.md"}' }],
      },
      { role: 'tool', toolCallId: 'call_1', name: 'read_file', content: '# Wheelhouse' },
      { role: 'assistant', content: 'It is titled Wheelhouse.', reasoningContent: 'Easy: it is the title.' },
      { role: 'user', content: 'Thanks. Run the tests.' },
      {
        role: 'assistant',
        content: 'Running them.',
        reasoningContent: null,
        toolCalls: [{ id: 'call_2', name: 'run_command', arguments: '{"command":"npm test"}' }],
      },
      { role: 'tool', toolCallId: 'call_2', name: 'run_command', content: 'ok' },
    ];

    await collectStream(client.stream(userRequest('', { messages, tools: TOOLS, model: 'deepseek-reasoner' })));

    const body = mock.requests[0]?.body;
    expect(body?.messages).toEqual([
      { role: 'system', content: 'You are a careful coding agent.' },
      { role: 'user', content: 'What is in the README?' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'I should read the README first.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '# Wheelhouse' },
      // Reasoning of a turn without tool calls is not sent back (DeepSeek ignores or rejects it).
      { role: 'assistant', content: 'It is titled Wheelhouse.' },
      { role: 'user', content: 'Thanks. Run the tests.' },
      {
        role: 'assistant',
        content: 'Running them.',
        tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'run_command', arguments: '{"command":"npm test"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_2', content: 'ok' },
    ]);
    expect(body?.tools).toEqual([
      { type: 'function', function: { name: 'read_file', description: 'Read a file in the workspace.', parameters: TOOLS[0]?.parameters } },
      { type: 'function', function: { name: 'run_command', description: 'Run a shell command.', parameters: TOOLS[1]?.parameters } },
    ]);
  });

  it('keeps the serialized prompt prefix byte-identical across requests of one thread', async () => {
    mock.enqueue([{ type: 'text', text: 'a' }, { type: 'finish' }], [{ type: 'text', text: 'b' }, { type: 'finish' }]);
    const client = new ChatCompletionsClient(mockProvider(mock, 'chat'));
    const first: ModelMessage[] = [{ role: 'user', content: 'one' }];
    const second: ModelMessage[] = [...first, { role: 'assistant', content: 'a' }, { role: 'user', content: 'two' }];

    await collectStream(client.stream(userRequest('', { messages: first, tools: TOOLS })));
    await collectStream(client.stream(userRequest('', { messages: second, tools: TOOLS })));

    const [a, b] = mock.requests.map((r) => r.rawBody);
    const prefix = a?.slice(0, a.indexOf('{"role":"user"'));
    expect(prefix).toContain('"tools":[');
    expect(prefix).toContain('"messages":[{"role":"system"');
    expect(b?.startsWith(prefix ?? '<missing>')).toBe(true);
    // The first request's whole conversation is a prefix of the second's, up to its closing bracket.
    expect(b?.startsWith(a?.slice(0, -2) ?? '<missing>')).toBe(true);
  });

  it('sends no Authorization header for a keyless local server, and sends configured headers', async () => {
    mock.enqueue([{ type: 'text', text: 'local' }, { type: 'finish' }]);
    const client = new ChatCompletionsClient(
      mockProvider(mock, 'chat', { apiKey: null, requiresApiKey: false, httpHeaders: { 'X-Team': 'wheelhouse' } }),
    );

    const { events } = await collectStream(client.stream(userRequest('hi')));

    expect(textOf(events)).toBe('local');
    expect(mock.requests[0]?.headers).not.toHaveProperty('authorization');
    expect(mock.requests[0]?.headers['x-team']).toBe('wheelhouse');
  });

  it('turns an error chunk inside the stream into a ModelError, keeping earlier text', async () => {
    mock.enqueue([{ type: 'text', text: 'Partial' }, { type: 'providerError', message: 'Model overloaded.', code: 'server_error' }]);
    const client = new ChatCompletionsClient(mockProvider(mock, 'chat'));

    const { events, error } = await collectStream(client.stream(userRequest('hi')));

    expect(textOf(events)).toBe('Partial');
    expect(error).toMatchObject({ kind: 'serverError', details: 'Model overloaded.' });
  });
});
