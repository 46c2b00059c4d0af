import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { createModelClient } from '../model/create-model-client.js';
import { ModelError } from '../model/types.js';
import { EncryptedFileSecretStore } from '../secrets/encrypted-file-secret-store.js';
import { EnvironmentOnlySecretStore } from '../secrets/environment-secret-store.js';
import { ConfigService } from './config-service.js';
import { createModelBinder } from './model-binder.js';
import { ProviderResolver } from './providers.js';

const temp = new TempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  temp.cleanup();
});

function binderFor(configToml: string, env: NodeJS.ProcessEnv = {}, keychain = false) {
  const dir = temp.make();
  const file = path.join(dir, 'config.toml');
  fs.writeFileSync(file, configToml);
  const configService = new ConfigService(file);
  const envKeyFor = (id: string) => configService.provider(id)?.envKey ?? null;
  // A real encrypted-file store stands for a machine with a keychain (toy cipher: only availability matters here).
  const store = keychain
    ? new EncryptedFileSecretStore({
        file: path.join(dir, 'secrets.bin'),
        cipher: { encrypt: (plain) => Buffer.from(plain), decrypt: (blob) => Buffer.from(blob).toString() },
        available: true,
        envKeyFor,
      })
    : new EnvironmentOnlySecretStore(envKeyFor);
  const providers = new ProviderResolver(() => configService.providers(), store, env);
  return createModelBinder({ configService, providers, createClient: createModelClient });
}

async function failureOf(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('expected a ModelError');
}

describe('binding a thread to a model', () => {
  it("uses the provider's default model and reports 95% of its context window as usable, as Codex does", async () => {
    const bind = binderFor('', { DEEPSEEK_API_KEY: 'sk-env' });
    const binding = await bind({ modelProvider: 'deepseek', model: null });
    expect([binding.model, binding.contextWindow]).toEqual(['deepseek-chat', 121_600]);
    expect((await bind({ modelProvider: 'deepseek', model: 'deepseek-reasoner' })).model).toBe('deepseek-reasoner');
  });

  it('uses the configured model for the configured provider', async () => {
    const bind = binderFor('model = "deepseek-reasoner"\n', { DEEPSEEK_API_KEY: 'sk-env' });
    expect((await bind({ modelProvider: 'deepseek', model: 'auto' })).model).toBe('deepseek-reasoner');
  });

  it('asks a local provider for its models when none is chosen, and takes the first', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ id: 'qwen3:8b' }, { id: 'gemma3' }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;
    const bind = binderFor(`[model_providers.ollama]\nbase_url = "http://127.0.0.1:${port}/v1"\n`);
    const binding = await bind({ modelProvider: 'ollama', model: null });
    expect([binding.model, binding.contextWindow]).toEqual(['gemma3', 258_400]);
  });

  it('says it could not connect, with the address, when a local provider is down (not "choose a model")', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const bind = binderFor(`[model_providers.mock]\nname = "Local mock"\nbase_url = "http://127.0.0.1:${port}/v1"\n`);
    const failure = await failureOf(bind({ modelProvider: 'mock', model: null }));
    expect(failure).toMatchObject({ kind: 'cannotConnect', address: `http://127.0.0.1:${port}/v1` });
    expect(failure.message).toBe(
      `Could not connect to http://127.0.0.1:${port}/v1 (the connection was refused). Check that the server is running and the address is right.`,
    );
  });

  it('says what to set when the key or the provider is missing', async () => {
    const bind = binderFor('');
    const noKey = await failureOf(bind({ modelProvider: 'openai', model: null }));
    expect(noKey.kind).toBe('missingKey');
    // A host built without key storage (this environment-only store) can only name the variable.
    expect(noKey.message).toBe(
      'OpenAI needs an API key, and none is saved. This host keeps no keys: set the environment variable OPENAI_API_KEY before starting Wheelhouse.',
    );
    const withStorage = await failureOf(binderFor('', {}, true)({ modelProvider: 'openai', model: null }));
    expect(withStorage).toMatchObject({ kind: 'missingKey', message: 'OpenAI needs an API key, and none is saved. Enter one in Settings.' });
    const unknown = await failureOf(bind({ modelProvider: 'gone', model: null }));
    expect(unknown.kind).toBe('configuration');
    expect(unknown.message).toContain('unknown model provider "gone"');
  });
});
