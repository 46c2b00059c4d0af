import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { ModelError, type ModelInfo, type ResolvedProvider } from '../model/types.js';
import { EncryptedFileSecretStore } from '../secrets/encrypted-file-secret-store.js';
import { EnvironmentOnlySecretStore } from '../secrets/environment-secret-store.js';
import type { SecretStore } from '../secrets/secret-store.js';
import type { ProviderConfig } from './builtin-providers.js';
import type { WheelhouseConfig } from './config-schema.js';
import { listProviderModels, pickDefaultModel, resolveModel, type ListModels } from './model-catalog.js';
import { mergeProviders, ProviderNotFoundError, ProviderResolver } from './providers.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

/** A real encrypted-file store (toy cipher: this test is about lookup order, not encryption) holding some keys. */
async function storeWith(keys: Record<string, string>): Promise<SecretStore> {
  const store = new EncryptedFileSecretStore({
    file: path.join(temp.make(), 'secrets.bin'),
    cipher: { encrypt: (plain) => Buffer.from(plain).reverse(), decrypt: (blob) => Buffer.from(blob).reverse().toString() },
    available: true,
    envKeyFor: () => null,
  });
  for (const [id, key] of Object.entries(keys)) await store.set(id, key);
  return store;
}

function resolverFor(config: WheelhouseConfig, store: SecretStore, env: NodeJS.ProcessEnv = {}) {
  const providers = mergeProviders(config);
  return { providers, resolver: new ProviderResolver(() => providers, store, env) };
}

const envOnly = new EnvironmentOnlySecretStore(() => null);

describe('providers', () => {
  it('ships DeepSeek, OpenAI, Ollama and LM Studio', () => {
    const providers = mergeProviders({});
    expect(providers.map((p) => [p.id, p.name, p.baseUrl, p.wireApi, p.envKey, p.requiresApiKey, p.defaultModel])).toEqual([
      ['deepseek', 'DeepSeek', 'https://api.deepseek.com', 'chat', 'DEEPSEEK_API_KEY', true, 'deepseek-chat'],
      ['openai', 'OpenAI', 'https://api.openai.com/v1', 'responses', 'OPENAI_API_KEY', true, 'gpt-5'],
      ['ollama', 'Ollama', 'http://localhost:11434/v1', 'chat', null, false, null],
      ['lmstudio', 'LM Studio', 'http://localhost:1234/v1', 'chat', null, false, null],
    ]);
  });

  it('lets config tables override built-ins and add providers', () => {
    const providers = mergeProviders({
      model_providers: {
        ollama: { base_url: 'http://gpu-box:11434/v1', request_max_retries: 0 },
        corp: { base_url: 'https://llm.corp.example/v1', env_key: 'CORP_KEY', http_headers: { 'X-Team': 'a' }, default_model: 'big-1' },
      },
    });
    const ollama = providers.find((p) => p.id === 'ollama');
    expect(ollama).toMatchObject({ name: 'Ollama', baseUrl: 'http://gpu-box:11434/v1', requestMaxRetries: 0, streamMaxRetries: 5 });
    const corp = providers.find((p) => p.id === 'corp');
    expect(corp).toMatchObject({
      name: 'corp',
      baseUrl: 'https://llm.corp.example/v1',
      wireApi: 'chat',
      envKey: 'CORP_KEY',
      requiresApiKey: true,
      builtIn: false,
      httpHeaders: { 'X-Team': 'a' },
      defaultModel: 'big-1',
      streamIdleTimeoutMs: 300_000,
    });
    expect(corp?.knownModels.map((m) => m.id)).toEqual(['big-1']);
  });

  it('takes the key from the env var named by env_key when none is stored', async () => {
    const { resolver } = resolverFor({}, envOnly, { DEEPSEEK_API_KEY: '  sk-env  ' });
    const resolved = await resolver.resolve('deepseek');
    expect(resolved).toEqual({
      id: 'deepseek',
      name: 'DeepSeek',
      baseUrl: 'https://api.deepseek.com',
      wireApi: 'chat',
      envKey: 'DEEPSEEK_API_KEY',
      apiKey: 'sk-env',
      requiresApiKey: true,
      requestMaxRetries: 4,
      streamMaxRetries: 5,
      streamIdleTimeoutMs: 300_000,
      httpHeaders: {},
    });
    expect(await resolver.apiKey(resolver.require('deepseek'))).toMatchObject({ source: 'environment' });
    expect(await resolver.apiKey(resolver.require('openai'))).toEqual({ apiKey: null, source: 'none', storeError: null });
  });

  it('prefers a stored key over the environment, and follows a renamed env_key', async () => {
    const config = { model_providers: { openai: { env_key: 'WORK_OPENAI' } } };
    const { resolver } = resolverFor(config, await storeWith({ deepseek: 'sk-stored' }), {
      DEEPSEEK_API_KEY: 'sk-env',
      OPENAI_API_KEY: 'sk-ignored',
      WORK_OPENAI: 'sk-work',
    });
    expect((await resolver.resolve('deepseek')).apiKey).toBe('sk-stored');
    expect(await resolver.apiKey(resolver.require('deepseek'))).toMatchObject({ source: 'keychain' });
    expect((await resolver.resolve('openai')).apiKey).toBe('sk-work');
    expect((await resolver.resolve('ollama')).apiKey).toBeNull();
  });

  it('names the known providers when asked for an unknown one', async () => {
    const { resolver } = resolverFor({}, envOnly);
    await expect(resolver.resolve('nope')).rejects.toThrow(ProviderNotFoundError);
    await expect(resolver.resolve('nope')).rejects.toThrow('known: deepseek, openai, ollama, lmstudio');
  });
});

describe('model resolution', () => {
  const [deepseek, , ollama] = mergeProviders({}) as [ProviderConfig, ProviderConfig, ProviderConfig];
  const listed: ModelInfo[] = [
    { id: 'qwen3:8b', displayName: 'qwen3:8b', contextWindow: null, reasoning: false },
    { id: 'llama3.2', displayName: 'llama3.2', contextWindow: null, reasoning: false },
  ];
  const lister = (models: ModelInfo[]): ListModels => async () => models;
  const unreachable: ListModels = async () => {
    throw new ModelError('other', 'connect ECONNREFUSED 127.0.0.1:11434');
  };
  const asResolved = (p: ProviderConfig): ResolvedProvider => ({ ...p, apiKey: null });

  it('uses the configured model for the configured provider only', () => {
    const configured = { modelProvider: 'deepseek', model: 'deepseek-reasoner' };
    expect(pickDefaultModel(deepseek, configured, [])).toBe('deepseek-reasoner');
    expect(pickDefaultModel(ollama, configured, listed)).toBe('qwen3:8b');
  });

  it('falls back to the provider default, then the first listed model', async () => {
    const none = { modelProvider: 'deepseek', model: null };
    expect(await resolveModel(null, deepseek, asResolved(deepseek), none, unreachable)).toBe('deepseek-chat');
    expect(await resolveModel('auto', ollama, asResolved(ollama), none, lister(listed))).toBe('qwen3:8b');
    expect(await resolveModel('llama3.2', ollama, asResolved(ollama), none, unreachable)).toBe('llama3.2');
    expect(await resolveModel(null, ollama, asResolved(ollama), none, lister([]))).toBeNull();
    // A provider that had to be asked and could not answer: its failure, not "no model", is the answer.
    await expect(resolveModel(null, ollama, asResolved(ollama), none, unreachable)).rejects.toThrow();
  });

  it("lists the provider's models when it answers, marking the default and filling known facts", async () => {
    const answer: ModelInfo[] = [
      { id: 'deepseek-reasoner', displayName: 'deepseek-reasoner', contextWindow: null, reasoning: false },
      { id: 'deepseek-chat', displayName: 'deepseek-chat', contextWindow: null, reasoning: false },
    ];
    const result = await listProviderModels(deepseek, asResolved(deepseek), { modelProvider: 'deepseek', model: null }, lister(answer));
    expect(result).toMatchObject({
      providerId: 'deepseek',
      source: 'provider',
      error: null,
      nextCursor: null,
      data: [
        { id: 'deepseek-reasoner', displayName: 'DeepSeek-V3.2 (thinking)', contextWindow: 128_000, reasoning: true, isDefault: false },
        { id: 'deepseek-chat', displayName: 'DeepSeek-V3.2 (chat)', contextWindow: 128_000, reasoning: false, isDefault: true },
      ],
    });
    // Codex's Model fields: the model name, and the effort Codex clients show as the default.
    expect(result.data.map((m) => [m.model, m.defaultReasoningEffort, m.hidden])).toEqual([
      ['deepseek-reasoner', 'medium', false],
      ['deepseek-chat', 'none', false],
    ]);
  });

  it('offers the known models, with the reason, when the provider is unreachable or too slow', async () => {
    const configured = { modelProvider: 'deepseek', model: null };
    const down = await listProviderModels(deepseek, asResolved(deepseek), configured, unreachable);
    expect(down.source).toBe('known');
    expect(down.error).toContain('ECONNREFUSED');
    expect(down.data.map((m) => [m.id, m.isDefault])).toEqual([
      ['deepseek-chat', true],
      ['deepseek-reasoner', false],
    ]);
    const hanging: ListModels = () => new Promise(() => {});
    const slow = await listProviderModels(deepseek, asResolved(deepseek), configured, hanging, 50);
    expect(slow).toMatchObject({ source: 'known', error: 'DeepSeek did not list its models within 50 ms' });
  });
});
