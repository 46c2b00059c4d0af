import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockModelServer, type MockModelServer } from './index.js';

/**
 * Fidelity of the mock: the official SDK's own stream accumulators (which
 * check event order and item bookkeeping) must rebuild the scripted reply.
 */
let mock: MockModelServer;
let sdk: OpenAI;
beforeEach(async () => {
  mock = await startMockModelServer();
  sdk = new OpenAI({ apiKey: 'sk-test', baseURL: mock.url, maxRetries: 0, logLevel: 'off' });
});
afterEach(async () => {
  await mock.close();
});

describe('mock model server', () => {
  it('renders Chat Completions chunks the SDK assembles into a full completion', async () => {
    mock.enqueue([
      { type: 'text', text: 'Checking ' },
      {
        type: 'toolCalls',
        interleave: true,
        calls: [
          { id: 'call_1', name: 'read_file', arguments: '{"path":"a"}', argumentChunks: 3 },
          { id: 'call_2', name: 'read_file', arguments: '{"path":"b"}', argumentChunks: 2 },
        ],
      },
      { type: 'finish', usage: { inputTokens: 11, cachedInputTokens: 3, outputTokens: 7 } },
    ]);

    const stream = sdk.chat.completions.stream({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();

    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.choices[0]?.message.content).toBe('Checking ');
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
      { id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } },
    ]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 3 } });
  });

  it('renders Responses events the SDK assembles into a full response', async () => {
    mock.enqueue([
      { type: 'reasoning', text: 'why not' },
      { type: 'text', text: 'Hello ' },
      { type: 'text', text: 'there' },
      { type: 'toolCalls', calls: [{ id: 'call_9', name: 'run', arguments: '{"cmd":"ls"}', argumentChunks: 2 }] },
      { type: 'finish', usage: { inputTokens: 20, cachedInputTokens: 10, outputTokens: 5, reasoningTokens: 2 } },
    ]);

    const stream = sdk.responses.stream({ model: 'gpt-5', input: 'hi', instructions: 'be brief' });
    const response = await stream.finalResponse();

    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Hello there');
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(response.output[2]).toMatchObject({ type: 'function_call', call_id: 'call_9', name: 'run', arguments: '{"cmd":"ls"}' });
    expect(response.usage).toMatchObject({ input_tokens: 20, input_tokens_details: { cached_tokens: 10 } });
  });

  it('writes a script when its request arrives, naming a tool the way the request offered it', async () => {
    mock.enqueue(({ body }) => {
      const offered = (body.tools as { name: string }[]).map((tool) => tool.name);
      return [
        { type: 'toolCalls', calls: [{ id: 'call_ns', namespace: offered[0], name: 'echo', arguments: '{}' }] },
        { type: 'finish' },
      ];
    });

    const response = await sdk.responses
      .stream({ model: 'gpt-5', input: 'hi', tools: [{ type: 'function', name: 'mcp__everything', parameters: {}, strict: false }] })
      .finalResponse();

    expect(response.output[0]).toMatchObject({ type: 'function_call', call_id: 'call_ns', namespace: 'mcp__everything', name: 'echo' });
  });

  it('records requests, serves the model list and answers unscripted requests with a clear 500', async () => {
    const models = await sdk.models.list();
    await expect(sdk.chat.completions.create({ model: 'm', messages: [] })).rejects.toMatchObject({ status: 500 });

    expect(models.data.map((m) => m.id)).toContain('deepseek-chat');
    expect(mock.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models', 'POST /v1/chat/completions']);
    expect(mock.requests[1]?.body).toEqual({ model: 'm', messages: [] });
    expect(mock.requests[1]?.headers.authorization).toBe('Bearer sk-test');
  });
});
