import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ErrorCode,
  RpcError,
  type AnyNotification,
} from '../../shared/protocol/index.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import type { RequestContext } from '../runtime/context.js';
import { homePaths } from '../runtime/home.js';
import type { Runtime } from '../host/runtime.js';
import { createTestRuntime, settledCaller } from '../../test-support/test-runtime.js';
import { EncryptedFileSecretStore, type SecretCipher } from '../secrets/encrypted-file-secret-store.js';
import { EnvironmentOnlySecretStore } from '../secrets/environment-secret-store.js';
import type { SecretStore } from '../secrets/secret-store.js';

const temp = new TempDirs();
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  temp.cleanup();
});

/** Toy cipher for this test only (the app passes Electron's safeStorage): reversed bytes behind a header. */
const toyCipher: SecretCipher = {
  encrypt: (plain) => Buffer.concat([Buffer.from('TOY:'), Buffer.from(plain).reverse()]),
  decrypt: (blob) => Buffer.from(blob).subarray(4).reverse().toString(),
};

type StoreFactory = (home: string, runtime: () => Runtime) => SecretStore;

const encryptedStore: StoreFactory = (home, runtime) =>
  new EncryptedFileSecretStore({
    file: path.join(home, 'secrets.bin'),
    cipher: toyCipher,
    available: true,
    envKeyFor: (id) => runtime().config.provider(id)?.envKey ?? null,
  });

/** A runtime on a real temp home, called like a client through its dispatcher. */
function startRuntime(options: { home?: string; store?: StoreFactory; configToml?: string } = {}) {
  const home = options.home ?? temp.make();
  if (options.configToml !== undefined) fs.writeFileSync(homePaths(home).config, options.configToml);
  let runtime: Runtime | undefined;
  const self = () => runtime as Runtime;
  runtime = createTestRuntime({
    home,
    validateResults: true,
    defaults: { cwd: home },
    ...(options.store ? { secretStore: () => options.store!(home, self) } : {}),
  });
  cleanups.push(() => runtime.close());
  const notifications: AnyNotification[] = [];
  runtime.events.subscribe((n) => notifications.push(n));
  const ctx: RequestContext = {
    session: { connectionId: 'test', carrier: 'in-process', clientInfo: null, optOut: new Set() },
  };
  const call = settledCaller(runtime, ctx);
  return { runtime, home, call, notifications };
}

async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error('expected an RpcError');
}

/** A local OpenAI-compatible endpoint that lists models and records the Authorization headers it saw. */
async function modelServer(models: string[]) {
  const authorizations: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model' })) }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, authorizations };
}

/** A loopback URL nothing listens on. */
async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

/** Every byte Wheelhouse wrote to the home, except the encrypted key file. */
function homeBytes(home: string): Buffer {
  const files = fs.readdirSync(home).filter((name) => name !== 'secrets.bin');
  return Buffer.concat(files.map((name) => fs.readFileSync(path.join(home, name))));
}

describe('config/read', () => {
  it('gives the effective defaults, every built-in provider and how keys are stored', async () => {
    const { call, home } = startRuntime({ store: (_home, runtime) => new EnvironmentOnlySecretStore((id) => runtime().config.provider(id)?.envKey ?? null) });
    const config = await call('config/read', {});
    expect(config).toMatchObject({
      filePath: homePaths(home).config,
      model: null,
      modelProvider: 'deepseek',
      approvalPolicy: null,
      sandboxMode: null,
      loadError: null,
      secretStorage: { kind: 'environment-only', available: false },
    });
    expect(config.secretStorage.description).toContain('environment variables');
    expect(config.providers.map((p) => [p.id, p.requiresApiKey, p.hasApiKey, p.keySource])).toEqual([
      ['deepseek', true, process.env['DEEPSEEK_API_KEY'] ? true : false, process.env['DEEPSEEK_API_KEY'] ? 'environment' : 'none'],
      ['openai', true, process.env['OPENAI_API_KEY'] ? true : false, process.env['OPENAI_API_KEY'] ? 'environment' : 'none'],
      ['ollama', false, false, 'none'],
      ['lmstudio', false, false, 'none'],
    ]);
  });

  it('uses the keychain store by default when one works here, else environment variables only', async () => {
    const { call } = startRuntime();
    const { secretStorage } = await call('config/read', {});
    expect(['os-keychain', 'environment-only']).toContain(secretStorage.kind);
    expect(secretStorage.available).toBe(secretStorage.kind === 'os-keychain');
  });

  it('starts on defaults with a malformed config.toml and reports the line to fix', async () => {
    const { call } = startRuntime({ configToml: 'model = "deepseek-chat"\nmodel_provider = \n' });
    const config = await call('config/read', {});
    expect(config.modelProvider).toBe('deepseek');
    expect(config.loadError).toMatchObject({ line: 2, keyPath: null });
    expect(config.loadError?.message).toContain('line 2');
    const { thread } = await call('thread/start', {});
    expect(thread.modelProvider).toBe('deepseek');
    const refused = await rpcError(call('config/value/write', { keyPath: 'model', value: 'x' }));
    expect(refused.code).toBe(ErrorCode.InvalidRequest);
    expect(refused.message).toContain('line 2');
  });

  it("answers Codex's whole config: the file's keys as written, Codex's defaults for the rest, and where each set value comes from", async () => {
    const { call, home } = startRuntime({
      configToml: [
        'model = "m1"',
        'project_doc_max_bytes = 1000',
        'some_future_key = "kept"',
        '[features]',
        'remote_models = false',
        '[model_providers.local]',
        'name = "Local"',
        'base_url = "http://127.0.0.1:9/v1"',
        'wire_api = "responses"',
        '',
      ].join('\n'),
    });
    const { config, origins } = await call('config/read', {});
    expect(config).toMatchObject({
      model: 'm1',
      project_doc_max_bytes: 1000,
      some_future_key: 'kept',
      history: { persistence: 'save-all', max_bytes: null },
      features: { remote_models: false, memories: false },
      mcp_servers: {},
      model_providers: { local: { name: 'Local', base_url: 'http://127.0.0.1:9/v1', wire_api: 'responses', stream_idle_timeout_ms: null, requires_openai_auth: false } },
    });
    const { version } = await call('config/value/write', { keyPath: 'model', value: 'm1', mergeStrategy: 'replace' });
    const after = await call('config/read', {});
    const origin = { name: { type: 'user', file: homePaths(home).config, profile: null }, version };
    expect(Object.keys(after.origins).sort()).toEqual(
      ['features.remote_models', 'model', 'model_providers.local.base_url', 'model_providers.local.name', 'model_providers.local.wire_api', 'project_doc_max_bytes', 'some_future_key'],
    );
    expect(after.origins['model_providers.local.base_url']).toEqual(origin);
    expect(Object.keys(origins)).toHaveLength(7);
  });
});

describe('config/value/write and config/batchWrite', () => {
  it('change config.toml, config/read and the defaults of the next thread, and announce it', async () => {
    const { call, home, notifications } = startRuntime();
    await call('config/batchWrite', {
      edits: [
        { keyPath: 'model_providers.local.base_url', value: 'http://127.0.0.1:8080/v1' },
        { keyPath: 'model_providers.local.name', value: 'My box' },
        { keyPath: 'model_provider', value: 'local' },
        { keyPath: 'approval_policy', value: 'on-request' },
      ],
    });
    const written = await call('config/value/write', { keyPath: 'model', value: 'qwen3:8b' });
    expect(written).toEqual({
      status: 'ok',
      filePath: homePaths(home).config,
      version: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      overriddenMetadata: null,
    });
    const config = await call('config/read', {});
    expect(config).toMatchObject({ model: 'qwen3:8b', modelProvider: 'local', approvalPolicy: 'on-request' });
    expect(config.providers.at(-1)).toMatchObject({ id: 'local', name: 'My box', builtIn: false, wireApi: 'chat' });
    const started = await call('thread/start', {});
    expect([started.modelProvider, started.model]).toEqual(['local', 'qwen3:8b']);
    expect(notifications.filter((n) => n.method === 'config/changed').map((n) => n.params)).toEqual([
      {
        reason: 'write',
        keyPaths: ['model_providers.local.base_url', 'model_providers.local.name', 'model_provider', 'approval_policy'],
        providerId: null,
      },
      { reason: 'write', keyPaths: ['model'], providerId: null },
    ]);
  });

  it('rejects a bad value naming its key path, and writes nothing', async () => {
    const { call, home } = startRuntime({ configToml: 'model = "deepseek-chat"\n' });
    const failure = await rpcError(
      call('config/batchWrite', {
        edits: [
          { keyPath: 'model', value: 'deepseek-reasoner' },
          { keyPath: 'model_providers.deepseek.stream_idle_timeout_ms', value: 'soon' },
        ],
      }),
    );
    expect(failure.code).toBe(ErrorCode.InvalidParams);
    expect(failure.message).toContain('model_providers.deepseek.stream_idle_timeout_ms');
    expect(failure.data).toMatchObject({ keyPath: 'model_providers.deepseek.stream_idle_timeout_ms' });
    expect(fs.readFileSync(homePaths(home).config, 'utf8')).toBe('model = "deepseek-chat"\n');
    const secret = await rpcError(call('config/value/write', { keyPath: 'model_providers.deepseek.api_key', value: 'sk-x' }));
    expect(secret.code).toBe(ErrorCode.InvalidParams);
    expect(secret.message).toContain('setApiKey');
  });
});

describe('credential headers', () => {
  it('refuses every header that carries a credential, naming the key, and writes nothing', async () => {
    const { call, home } = startRuntime({ configToml: 'model = "deepseek-chat"\n' });
    const refused: Array<[string, string]> = [
      ['X-Goog-Api-Key', 'AIzaSyExample'],
      ['X-Auth-Token', 'abc123'],
      ['Authorization', 'Bearer abc'],
      ['Proxy-Authorization', 'Basic abc'],
      ['api-key', 'abc'],
      ['X-Client-Secret', 'abc'],
      ['Cookie', 'session=abc'],
      ['X-Amz-Security-Token', 'abc'],
      ['Ocp-Apim-Subscription-Key', 'abc'],
      // A credential by its value, whatever the header is called.
      ['X-Custom', 'Bearer abc'],
      ['X-Custom', 'sk-abcdef123456'],
    ];
    for (const [header, value] of refused) {
      const keyPath = `model_providers.deepseek.http_headers.${header}`;
      const failure = await rpcError(call('config/value/write', { keyPath, value }));
      expect({ header, code: failure.code }).toEqual({ header, code: ErrorCode.InvalidParams });
      expect(failure.message).toContain(header);
      expect(failure.data).toMatchObject({ keyPath });
      const whole = await rpcError(call('config/value/write', { keyPath: 'model_providers.deepseek.http_headers', value: { [header]: value } }));
      expect({ header, code: whole.code }).toEqual({ header, code: ErrorCode.InvalidParams });
    }
    expect(fs.readFileSync(homePaths(home).config, 'utf8')).toBe('model = "deepseek-chat"\n');
    // Ordinary headers are still fine.
    await call('config/value/write', { keyPath: 'model_providers.deepseek.http_headers.X-Title', value: 'Wheelhouse' });
    expect(fs.readFileSync(homePaths(home).config, 'utf8')).toContain('X-Title');
  });
});

describe('API keys', () => {
  it('without secure storage: refuses to store, naming the env var to set, and writes no file', async () => {
    const { call, home } = startRuntime({
      store: (_home, runtime) => new EnvironmentOnlySecretStore((id) => runtime().config.provider(id)?.envKey ?? null),
    });
    const failure = await rpcError(call('config/provider/setApiKey', { providerId: 'deepseek', apiKey: 'sk-never-stored-1' }));
    expect(failure.code).toBe(ErrorCode.InvalidRequest);
    expect(failure.message).toContain('Set the environment variable DEEPSEEK_API_KEY');
    expect(failure.data).toMatchObject({ reason: 'secretStorage.unavailable', envKey: 'DEEPSEEK_API_KEY' });
    expect(failure.message).not.toContain('sk-never-stored-1');
    expect(homeBytes(home).includes('sk-never-stored-1')).toBe(false);
  });

  it('rejects an unknown provider and a blank key', async () => {
    const { call } = startRuntime({ store: encryptedStore });
    const unknown = await rpcError(call('config/provider/setApiKey', { providerId: 'nope', apiKey: 'sk-1' }));
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
    expect(unknown.message).toContain('unknown model provider "nope"');
    const blank = await rpcError(call('config/provider/setApiKey', { providerId: 'deepseek', apiKey: '   ' }));
    expect(blank.code).toBe(ErrorCode.InvalidParams);
  });

  it('reach the provider, yet never config.toml, the SQLite state, events or notifications', async () => {
    const key = 'sk-wheelhouse-secret-4f1c9e';
    const server = await modelServer(['qwen3:8b', 'llama3.2']);
    const { call, home, runtime, notifications } = startRuntime({ store: encryptedStore });
    await call('config/batchWrite', {
      edits: [
        { keyPath: 'model_providers.local.base_url', value: server.baseUrl },
        { keyPath: 'model_providers.local.env_key', value: 'WHEELHOUSE_TEST_LOCAL_KEY' },
      ],
    });
    const stored = await call('config/provider/setApiKey', { providerId: 'local', apiKey: `  ${key}\n` });
    expect(stored).toEqual({ providerId: 'local', hasApiKey: true, keySource: 'keychain' });
    const local = (await call('config/read', {})).providers.find((p) => p.id === 'local');
    expect(local).toMatchObject({ hasApiKey: true, keySource: 'keychain', requiresApiKey: true });

    const models = await call('model/list', { providerId: 'local' });
    expect(models).toMatchObject({
      providerId: 'local',
      nextCursor: null,
      source: 'provider',
      error: null,
      data: [
        { id: 'llama3.2', displayName: 'llama3.2', contextWindow: null, reasoning: false, isDefault: true },
        { id: 'qwen3:8b', displayName: 'qwen3:8b', contextWindow: null, reasoning: false, isDefault: false },
      ],
    });
    expect(server.authorizations).toEqual([`Bearer ${key}`]);

    await call('thread/start', {});
    const cleared = await call('config/provider/clearApiKey', { providerId: 'local' });
    expect(cleared).toEqual({ providerId: 'local', hasApiKey: false, keySource: 'none' });
    expect(notifications.filter((n) => n.method === 'config/changed').map((n) => n.params.reason)).toEqual([
      'write',
      'apiKeySet',
      'apiKeyCleared',
    ]);
    await call('config/provider/setApiKey', { providerId: 'local', apiKey: key });

    runtime.close();
    expect(JSON.stringify(notifications)).not.toContain(key);
    const bytes = homeBytes(home);
    expect(fs.readdirSync(home)).toEqual(expect.arrayContaining(['config.toml', 'state.sqlite', 'secrets.bin']));
    expect(bytes.includes(key)).toBe(false);
    expect(fs.readFileSync(path.join(home, 'secrets.bin')).includes(key)).toBe(false);

    // The key is still there for the next start.
    const again = startRuntime({ home, store: encryptedStore });
    const after = (await again.call('config/read', {})).providers.find((p) => p.id === 'local');
    expect(after).toMatchObject({ hasApiKey: true, keySource: 'keychain' });
  });

  it('fall back to the env var named by env_key once the stored key is cleared', async () => {
    process.env['WHEELHOUSE_TEST_ENV_KEY'] = 'sk-from-env';
    cleanups.push(() => void delete process.env['WHEELHOUSE_TEST_ENV_KEY']);
    const { call } = startRuntime({ store: encryptedStore });
    await call('config/value/write', {
      keyPath: 'model_providers.openai',
      value: { env_key: 'WHEELHOUSE_TEST_ENV_KEY' },
      mergeStrategy: 'upsert',
    });
    await call('config/provider/setApiKey', { providerId: 'openai', apiKey: 'sk-stored' });
    expect(await call('config/provider/clearApiKey', { providerId: 'openai' })).toEqual({
      providerId: 'openai',
      hasApiKey: true,
      keySource: 'environment',
    });
  });
});

describe('model/list', () => {
  it('offers the known models, with the reason, when the provider cannot be reached', async () => {
    const { call } = startRuntime({ store: encryptedStore });
    await call('config/value/write', { keyPath: 'model_providers.deepseek.base_url', value: await closedPortUrl() });
    await call('config/value/write', { keyPath: 'model', value: 'deepseek-reasoner' });
    const models = await call('model/list', {});
    expect(models.providerId).toBe('deepseek');
    expect(models.source).toBe('known');
    expect(models.error).toEqual(expect.any(String));
    expect(models.data.map((m) => [m.id, m.contextWindow, m.reasoning, m.isDefault])).toEqual([
      ['deepseek-chat', 128_000, false, false],
      ['deepseek-reasoner', 128_000, true, true],
    ]);
  });
});

describe('config/import/codewhale', () => {
  it('imports providers from a CodeWhale file and reports what it did', async () => {
    const source = path.join(temp.make(), 'config.toml');
    fs.writeFileSync(
      source,
      'provider = "moonshot"\n[providers.moonshot]\nbase_url = "https://api.moonshot.ai/v1"\napi_key_env = "MOONSHOT_API_KEY"\nmodel = "kimi-k2"\n',
    );
    const { call, notifications } = startRuntime({ store: encryptedStore });
    const imported = await call('config/import/codewhale', { path: source });
    expect(imported).toMatchObject({
      sourcePath: source,
      providers: [{ id: 'moonshot', baseUrl: 'https://api.moonshot.ai/v1', envKey: 'MOONSHOT_API_KEY', model: 'kimi-k2' }],
      modelProvider: 'moonshot',
      model: 'kimi-k2',
      skipped: [],
    });
    const config = await call('config/read', {});
    expect(config).toMatchObject({ modelProvider: 'moonshot', model: 'kimi-k2' });
    expect(config.providers.find((p) => p.id === 'moonshot')).toMatchObject({ envKey: 'MOONSHOT_API_KEY', wireApi: 'chat' });
    expect(notifications.some((n) => n.method === 'config/changed' && n.params.reason === 'import')).toBe(true);

    const missing = await rpcError(call('config/import/codewhale', { path: path.join(temp.make(), 'none.toml') }));
    expect(missing.code).toBe(ErrorCode.InvalidRequest);
    expect(missing.message).toContain('No CodeWhale config at');
  });
});
