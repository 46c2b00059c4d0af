import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockModelServer, type MockModelServer } from '../../test-support/mock-model/index.js';
import { collectStream, mockProvider, textOf, userRequest } from '../../test-support/mock-model/model-test-kit.js';
import { createModelClient } from './create-model-client.js';
import { lookupKnownModel } from './known-models.js';

let mock: MockModelServer;
beforeEach(async () => {
  mock = await startMockModelServer({ apiKey: 'sk-mock-key', models: ['gpt-5-2025-08-07', 'my-local-llm', 'deepseek-reasoner', 'deepseek-chat'] });
});
afterEach(async () => {
  await mock.close();
});

describe('createModelClient', () => {
  it('speaks the wire the provider is configured for', async () => {
    mock.enqueue([{ type: 'text', text: 'from chat' }, { type: 'finish' }], [{ type: 'text', text: 'from responses' }, { type: 'finish' }]);

    const chat = await collectStream(createModelClient(mockProvider(mock, 'chat')).stream(userRequest('hi')));
    const responses = await collectStream(createModelClient(mockProvider(mock, 'responses')).stream(userRequest('hi')));

    expect(textOf(chat.events)).toBe('from chat');
    expect(textOf(responses.events)).toBe('from responses');
    expect(mock.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/responses']);
  });

  it('lists the provider models with known context windows', async () => {
    const models = await createModelClient(mockProvider(mock, 'chat')).listModels(new AbortController().signal);

    expect(models).toEqual([
      { id: 'deepseek-chat', displayName: 'DeepSeek-V3.2 (chat)', contextWindow: 128_000, reasoning: false },
      { id: 'deepseek-reasoner', displayName: 'DeepSeek-V3.2 (thinking)', contextWindow: 128_000, reasoning: true },
      { id: 'gpt-5-2025-08-07', displayName: 'GPT-5', contextWindow: 400_000, reasoning: true },
      { id: 'my-local-llm', displayName: 'my-local-llm', contextWindow: null, reasoning: false },
    ]);
    expect(mock.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models' });
    expect(mock.requests[0]?.headers.authorization).toBe('Bearer sk-mock-key');
  });

  it('reports a rejected key when listing models', async () => {
    const client = createModelClient(mockProvider(mock, 'responses', { apiKey: 'sk-wrong' }));

    await expect(client.listModels(new AbortController().signal)).rejects.toMatchObject({
      kind: 'unauthorized',
      httpStatus: 401,
    });
  });

  it('reports an unusable base URL as a configuration error', async () => {
    const client = createModelClient(mockProvider({ url: 'not a url' }, 'chat'));

    await expect(client.listModels(new AbortController().signal)).rejects.toMatchObject({ kind: 'configuration' });
    const { error } = await collectStream(client.stream(userRequest('hi')));
    expect(error).toMatchObject({ kind: 'configuration' });
  });
});

describe('lookupKnownModel', () => {
  it('matches exact ids, dated snapshots and router prefixes, preferring the longest known id', () => {
    expect(lookupKnownModel('deepseek-chat')?.contextWindow).toBe(128_000);
    expect(lookupKnownModel('gpt-4o-2024-08-06')?.displayName).toBe('GPT-4o');
    expect(lookupKnownModel('gpt-4o-mini-2024-07-18')?.displayName).toBe('GPT-4o mini');
    expect(lookupKnownModel('openai/gpt-5-mini')?.displayName).toBe('GPT-5 mini');
    expect(lookupKnownModel('gpt-50')).toBeNull();
    expect(lookupKnownModel('llama3.1:8b')).toBeNull();
  });
});
