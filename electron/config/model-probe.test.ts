import fs from 'node:fs';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, RpcError, type ModelTestResult } from '../../shared/protocol/index.js';
import { startMockModelServer, type MockModelServer } from '../../test-support/mock-model/index.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import type { RequestContext } from '../runtime/context.js';
import { homePaths } from '../runtime/home.js';
import type { Runtime } from '../host/runtime.js';
import { createTestRuntime } from '../../test-support/test-runtime.js';
import { EnvironmentOnlySecretStore } from '../secrets/environment-secret-store.js';

/** The "Test" button: a real request through the configured provider, answered by the mock model server. */
const temp = new TempDirs();
const ctx: RequestContext = { session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() } };
let mock: MockModelServer;
let keyed: MockModelServer;
const runtimes: Runtime[] = [];

beforeAll(async () => {
  mock = await startMockModelServer({ models: ['local-model', 'other-model'] });
  keyed = await startMockModelServer({ apiKey: 'sk-right' });
});
afterAll(async () => {
  await mock.close();
  await keyed.close();
});
afterEach(() => {
  for (const runtime of runtimes.splice(0)) runtime.close();
  temp.cleanup();
});

function runtimeWith(configToml: string): Runtime {
  const home = temp.make();
  fs.writeFileSync(homePaths(home).config, configToml);
  const runtime = createTestRuntime({
    home,
    validateResults: true,
    defaults: { cwd: home },
    secretStore: () => new EnvironmentOnlySecretStore(() => null),
  });
  runtimes.push(runtime);
  return runtime;
}

const test = (runtime: Runtime, providerId: string, model?: string, apiKey?: string): Promise<ModelTestResult> =>
  runtime.dispatcher.call('model/test', { providerId, ...(model ? { model } : {}), ...(apiKey ? { unsaved: { apiKey } } : {}) }, ctx);

describe.each(['chat', 'responses'] as const)('model/test over the %s wire', (wire) => {
  it('sends one short prompt and reports the reply, the model and the time taken', async () => {
    const runtime = runtimeWith(`[model_providers.box]\nbase_url = "${mock.url}"\nwire_api = "${wire}"\n`);
    mock.enqueue([{ type: 'text', text: 'ready' }, { type: 'finish' }]);
    const before = mock.requests.length;
    const result = await test(runtime, 'box');
    expect(result).toMatchObject({ ok: true, model: 'local-model', reply: 'ready' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    const sent = mock.requests.slice(before).find((r) => r.method === 'POST');
    expect(sent?.body?.['model']).toBe('local-model');
    expect(sent?.rawBody).toContain('ready');
  });
});

describe('model/test failures, each in words a person can act on', () => {
  it('uses the model it is given', async () => {
    const runtime = runtimeWith(`[model_providers.box]\nbase_url = "${mock.url}"\n`);
    mock.enqueue([{ type: 'text', text: 'ok' }, { type: 'finish' }]);
    expect(await test(runtime, 'box', 'other-model')).toMatchObject({ ok: true, model: 'other-model' });
  });

  it('reports a rejected key without retrying', async () => {
    const runtime = runtimeWith(`[model_providers.box]\nbase_url = "${keyed.url}"\ndefault_model = "m"\n`);
    const before = keyed.requests.length;
    const result = await test(runtime, 'box', undefined, 'sk-wrong');
    expect(result).toMatchObject({ ok: false, model: 'm', error: { kind: 'unauthorized', address: null } });
    if (result.ok) throw new Error('unreachable');
    expect(result.error.message).toMatch(/refused the API key/);
    expect(keyed.requests.length - before).toBe(1);
    // Sent without a key, the same refusal means a key is needed, not that it is wrong.
    expect(await test(runtime, 'box')).toMatchObject({ ok: false, error: { kind: 'missingKey' } });
  });

  it('says a key is missing once the server answers, and sends no prompt without one', async () => {
    const runtime = runtimeWith(`[model_providers.box]\nbase_url = "${mock.url}"\nenv_key = "WHEELHOUSE_TEST_UNSET_KEY"\ndefault_model = "m"\n`);
    const before = mock.requests.filter((r) => r.method === 'POST').length;
    const result = await test(runtime, 'box');
    expect(result).toMatchObject({ ok: false, error: { kind: 'missingKey', message: 'box needs an API key, and none was given.' } });
    expect(mock.requests.filter((r) => r.method === 'POST').length).toBe(before);
  });

  it('reports an unreachable address before a missing key', async () => {
    const port = await closedPort();
    const runtime = runtimeWith(`[model_providers.box]\nbase_url = "http://127.0.0.1:${port}/v1"\nenv_key = "WHEELHOUSE_TEST_UNSET_KEY"\n`);
    const result = await test(runtime, 'box');
    expect(result).toMatchObject({ ok: false, error: { kind: 'cannotConnect', address: `http://127.0.0.1:${port}/v1` } });
    if (result.ok) throw new Error('unreachable');
    expect(result.error.message).toBe(`Could not connect to http://127.0.0.1:${port}/v1. Check that the server is running and the address is right.`);
  });

  it('tests typed settings without writing them', async () => {
    const runtime = runtimeWith('model_provider = "deepseek"\n');
    const configFile = homePaths(runtime.home).config;
    const before = fs.readFileSync(configFile, 'utf8');
    mock.enqueue([{ type: 'text', text: 'ready' }, { type: 'finish' }]);
    const result = await runtime.dispatcher.call(
      'model/test',
      { providerId: 'my-server', unsaved: { name: 'My server', baseUrl: mock.url, wireApi: 'chat' } },
      ctx,
    );
    expect(result).toMatchObject({ ok: true, reply: 'ready' });
    expect(fs.readFileSync(configFile, 'utf8')).toBe(before);
    const config = await runtime.dispatcher.call('config/read', {}, ctx);
    expect(config.modelProvider).toBe('deepseek');
    expect(config.providers.some((p) => p.id === 'my-server')).toBe(false);
  });

  it('reports a server that is not there with its address, also when it had to ask for the model list', async () => {
    const port = await closedPort();
    const address = `http://127.0.0.1:${port}/v1`;
    const named = runtimeWith(`[model_providers.gone]\nbase_url = "${address}"\ndefault_model = "m"\n`);
    expect(await test(named, 'gone')).toMatchObject({ ok: false, error: { kind: 'cannotConnect', address } });
    // No model named: the listing is what fails, and that is what is said (not "no models").
    const unnamed = runtimeWith(`[model_providers.gone]\nbase_url = "${address}"\n`);
    const result = await test(unnamed, 'gone');
    expect(result).toMatchObject({ ok: false, error: { kind: 'cannotConnect', address } });
    if (result.ok) throw new Error('unreachable');
    expect(result.error.message).toMatch(/^Could not connect to http:\/\/127\.0\.0\.1:\d+\/v1 \(the connection was refused\)/);
  });

  it('refuses an unknown provider id as a bad request', async () => {
    const runtime = runtimeWith('');
    const error = await test(runtime, 'nobody').then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(ErrorCode.InvalidParams);
    expect((error as RpcError).message).toMatch(/unknown model provider "nobody"/);
  });
});

/** One model/test per cause the provider can give, each as the mock model gives it. */
describe('model/test names the cause of each provider failure', () => {
  const causes = [
    { cause: 'rateLimited', step: { type: 'httpError', status: 429, retryAfter: '0' }, words: /rate limiting/ },
    { cause: 'quotaExceeded', step: { type: 'httpError', status: 402, message: 'Insufficient Balance' }, words: /no credit or quota left/ },
    { cause: 'modelNotFound', step: { type: 'httpError', status: 404, message: 'The model `m` does not exist.', code: 'model_not_found' }, words: /no model called “m”/ },
    { cause: 'serverError', step: { type: 'httpError', status: 503 }, words: /server error/ },
    { cause: 'unauthorized', step: { type: 'httpError', status: 401 }, words: /refused the API key/ },
  ] as const;
  it.each(causes)('$cause', async ({ cause, step, words }) => {
    const runtime = runtimeWith(`[model_providers.box]\nbase_url = "${mock.url}"\ndefault_model = "m"\n`);
    mock.enqueue([step]);
    const result = await test(runtime, 'box', undefined, 'sk-some-key');
    expect(result).toMatchObject({ ok: false, model: 'm', error: { kind: cause, address: null } });
    if (result.ok) throw new Error('unreachable');
    expect(result.error.message).toMatch(words);
  });
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
