import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGate, startMockModelServer, type MockModelServer } from '../../test-support/mock-model/index.js';
import { collectStream, mockProvider, textOf, userRequest } from '../../test-support/mock-model/model-test-kit.js';
import { createModelClient } from './create-model-client.js';
import { ModelError, type ResolvedProvider, type WireApi } from './types.js';

let mock: MockModelServer;
beforeEach(async () => {
  mock = await startMockModelServer();
});
afterEach(async () => {
  await mock.close();
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.each<WireApi>(['chat', 'responses'])('model failures on the %s wire', (wire) => {
  const client = (overrides: Partial<ResolvedProvider> = {}) => createModelClient(mockProvider(mock, wire, overrides));

  it('401: unauthorized with a message that says what to do, not retried', async () => {
    mock.enqueue([{ type: 'httpError', status: 401 }]);

    const { error } = await collectStream(client({ requestMaxRetries: 3 }).stream(userRequest('hi')));

    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      kind: 'unauthorized',
      message: 'The provider refused the API key. Enter a valid key for it.',
      httpStatus: 401,
      details: 'Incorrect API key provided.',
    });
    expect(mock.requests).toHaveLength(1);
  });

  it('401 to a request sent without a key: missingKey (a key is needed, not a better one)', async () => {
    mock.enqueue([{ type: 'httpError', status: 401 }]);

    const { error } = await collectStream(client({ apiKey: null, requiresApiKey: false }).stream(userRequest('hi')));

    expect(error).toMatchObject({ kind: 'missingKey', httpStatus: 401 });
    expect((error as ModelError).message).toBe('The provider asks for an API key, and none is saved. Enter one for it.');
    expect(mock.requests[0]?.headers['authorization']).toBeUndefined();
  });

  it('429 is retried honouring Retry-After, then succeeds', async () => {
    mock.enqueue([{ type: 'httpError', status: 429, retryAfter: '0.05' }], [{ type: 'text', text: 'made it' }, { type: 'finish' }]);

    const { events, error } = await collectStream(client({ requestMaxRetries: 2 }).stream(userRequest('hi')));

    expect(error).toBeNull();
    expect(events[0]).toEqual({
      type: 'retrying',
      attempt: 1,
      retry: { kind: 'request', number: 1, max: 2 },
      delayMs: 50,
      reason: 'The provider is rate limiting requests. Wait a minute and try again.',
    });
    expect(textOf(events)).toBe('made it');
    expect(mock.requests).toHaveLength(2);
    expect(mock.requests[1]?.rawBody).toBe(mock.requests[0]?.rawBody);
  });

  it('429 becomes rateLimited once retries are exhausted', async () => {
    const tooMany = { type: 'httpError', status: 429, retryAfter: '0' } as const;
    mock.enqueue([tooMany], [tooMany], [tooMany]);

    const { events, error } = await collectStream(client({ requestMaxRetries: 2 }).stream(userRequest('hi')));

    expect(events.map((e) => e.type)).toEqual(['retrying', 'retrying']);
    expect(error).toMatchObject({ kind: 'rateLimited', httpStatus: 429 });
    expect((error as ModelError).message).toContain('Retried 2 times');
    expect(mock.requests).toHaveLength(3);
  });

  it('5xx: serverError', async () => {
    mock.enqueue([{ type: 'httpError', status: 503, message: 'Overloaded, try later.' }]);

    const { error } = await collectStream(client().stream(userRequest('hi')));

    expect(error).toMatchObject({
      kind: 'serverError',
      httpStatus: 503,
      message: 'The provider had a server error. Try again shortly.',
      details: 'Overloaded, try later.',
    });
  });

  it('connection refused: cannotConnect naming the address, at once (nothing is listening, so no retries)', async () => {
    const port = await closedPort();
    const provider = mockProvider({ url: `http://127.0.0.1:${port}/v1` }, wire, { requestMaxRetries: 3 });

    const { error, events } = await collectStream(createModelClient(provider).stream(userRequest('hi')));

    expect(events).toEqual([]);
    expect(error).toMatchObject({ kind: 'cannotConnect', httpStatus: null, address: `http://127.0.0.1:${port}/v1` });
    expect((error as ModelError).message).toBe(
      `Could not connect to http://127.0.0.1:${port}/v1 (the connection was refused). Check that the server is running and the address is right.`,
    );
  });

  it('an address with credentials or a query is reported without them', async () => {
    const port = await closedPort();
    const provider = mockProvider({ url: `http://user:hunter2@127.0.0.1:${port}/v1?key=sk-in-query` }, wire);

    const { error } = await collectStream(createModelClient(provider).stream(userRequest('hi')));

    expect(error).toMatchObject({ kind: 'cannotConnect', address: `http://127.0.0.1:${port}/v1` });
    expect((error as ModelError).message).not.toMatch(/hunter2|sk-in-query/);
  });

  it('402 or a quota code: quotaExceeded, not retried', async () => {
    mock.enqueue([{ type: 'httpError', status: 402, message: 'Insufficient Balance', code: 'invalid_request_error' }]);
    const { error: balance } = await collectStream(client({ requestMaxRetries: 3 }).stream(userRequest('hi')));
    expect(balance).toMatchObject({ kind: 'quotaExceeded', httpStatus: 402, details: 'Insufficient Balance' });
    expect((balance as ModelError).message).toBe(
      'The provider says this account has no credit or quota left. Add credit with the provider, or use another key.',
    );

    // OpenAI sends an exhausted quota as a 429, which waiting does not cure.
    mock.enqueue([{ type: 'httpError', status: 429, message: 'You exceeded your current quota.', code: 'insufficient_quota' }]);
    const { error: quota, events } = await collectStream(client({ requestMaxRetries: 3 }).stream(userRequest('hi')));
    expect(quota).toMatchObject({ kind: 'quotaExceeded', httpStatus: 429 });
    expect(events).toEqual([]);
    expect(mock.requests).toHaveLength(2);
  });

  it('an unknown model: modelNotFound naming it, not retried', async () => {
    mock.enqueue([{ type: 'httpError', status: 404, message: 'The model `gpt-9` does not exist.', code: 'model_not_found' }]);
    const { error } = await collectStream(client({ requestMaxRetries: 3 }).stream({ ...userRequest('hi'), model: 'gpt-9' }));
    expect(error).toMatchObject({ kind: 'modelNotFound', httpStatus: 404 });
    expect((error as ModelError).message).toBe('The provider has no model called “gpt-9”. Choose another model.');

    // DeepSeek's way: a 400 whose message says so.
    mock.enqueue([{ type: 'httpError', status: 400, message: 'Model Not Exist', code: 'invalid_request_error' }]);
    const { error: deepseek } = await collectStream(client().stream({ ...userRequest('hi'), model: 'deepseek-chatty' }));
    expect(deepseek).toMatchObject({ kind: 'modelNotFound', httpStatus: 400 });
    expect(mock.requests).toHaveLength(2);
  });

  it('a 404 that is not about a model: the address is wrong (configuration)', async () => {
    const provider = mockProvider({ url: mock.url.replace(/\/v1$/, '/nothing-here') }, wire);
    const { error } = await collectStream(createModelClient(provider).stream(userRequest('hi')));
    expect(error).toMatchObject({ kind: 'configuration', httpStatus: 404 });
    expect((error as ModelError).message).toContain('answers the way Wheelhouse asks');
  });

  it('no bytes for streamIdleTimeoutMs: timeout, keeping the text so far', async () => {
    mock.enqueue([{ type: 'text', text: 'Thinking about' }, { type: 'stall' }]);

    const { events, error } = await collectStream(client({ streamIdleTimeoutMs: 300 }).stream(userRequest('hi')));

    expect(textOf(events)).toBe('Thinking about');
    expect(error).toMatchObject({ kind: 'timeout' });
    // The stream stalls for good: only the idle timeout can have ended it, and it says which.
    expect((error as ModelError).message).toContain('sent nothing for 300 ms');
    expect(await mock.requests[0]?.outcome).toBe('clientClosed');
  });

  it('no bytes at all for streamIdleTimeoutMs: timeout', async () => {
    mock.enqueue([{ type: 'stall' }]);

    const { events, error } = await collectStream(client({ streamIdleTimeoutMs: 200 }).stream(userRequest('hi')));

    expect(events).toEqual([]);
    expect(error).toMatchObject({ kind: 'timeout' });
    expect((error as ModelError).message).toBe(
      'The provider sent nothing for 200 ms, so the request timed out. Try again, or raise the stream idle timeout for this provider.',
    );
  });

  it('connection cut mid-reply: streamInterrupted, keeping the text so far', async () => {
    mock.enqueue([{ type: 'text', text: 'The answer is' }, { type: 'cut' }]);

    const { events, error } = await collectStream(client({ streamMaxRetries: 3 }).stream(userRequest('hi')));

    expect(textOf(events)).toBe('The answer is');
    expect(error).toMatchObject({ kind: 'streamInterrupted' });
    // Output had begun, so no reconnect.
    expect(mock.requests).toHaveLength(1);
  });

  it('stream closed without a finish event: streamInterrupted', async () => {
    mock.enqueue([{ type: 'text', text: 'Half an answ' }]);

    const { events, error } = await collectStream(client().stream(userRequest('hi')));

    expect(textOf(events)).toBe('Half an answ');
    expect(error).toMatchObject({ kind: 'streamInterrupted' });
  });

  it('malformed chunk JSON: badResponse', async () => {
    mock.enqueue([{ type: 'text', text: 'ok so far' }, { type: 'malformed' }, { type: 'text', text: 'never seen' }, { type: 'finish' }]);

    const { events, error } = await collectStream(client({ streamMaxRetries: 3 }).stream(userRequest('hi')));

    expect(textOf(events)).toBe('ok so far');
    expect(error).toMatchObject({ kind: 'badResponse' });
    expect(mock.requests).toHaveLength(1);
  });

  it('a drop before any output reconnects (streamMaxRetries) and then streams', async () => {
    mock.enqueue([{ type: 'cut' }], [{ type: 'text', text: 'second try' }, { type: 'finish' }]);

    const { events, error } = await collectStream(client({ streamMaxRetries: 1 }).stream(userRequest('hi')));

    expect(error).toBeNull();
    expect(events[0]).toMatchObject({ type: 'retrying', attempt: 1, retry: { kind: 'stream', number: 1, max: 1 } });
    expect(events[0]?.type === 'retrying' && events[0].reason).toMatch(/dropped/);
    expect(textOf(events)).toBe('second try');
    expect(mock.requests).toHaveLength(2);
  });

  it('drops before any output beyond streamMaxRetries: streamInterrupted', async () => {
    mock.enqueue([{ type: 'cut' }], [{ type: 'cut' }]);

    const { events, error } = await collectStream(client({ streamMaxRetries: 1 }).stream(userRequest('hi')));

    expect(events.map((e) => e.type)).toEqual(['retrying']);
    expect(error).toMatchObject({ kind: 'streamInterrupted' });
    expect(mock.requests).toHaveLength(2);
  });

  it('abort mid-stream ends iteration promptly with an AbortError and closes the connection', async () => {
    const gate = createGate();
    mock.enqueue([{ type: 'text', text: 'first words' }, { type: 'waitFor', release: gate.promise }, { type: 'text', text: 'late' }, { type: 'finish' }]);
    const controller = new AbortController();

    // The server holds the rest of the reply until the gate opens after the test: only the abort can end the stream.
    const { events, error } = await collectStream(
      client().stream(userRequest('hi', { signal: controller.signal })),
      (event) => {
        if (event.type === 'textDelta') controller.abort();
      },
    );

    expect(textOf(events)).toBe('first words');
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    expect(await mock.requests[0]?.outcome).toBe('clientClosed');
    gate.release();
  });

  it('abort during a retry wait ends promptly', async () => {
    mock.enqueue([{ type: 'httpError', status: 503, retryAfter: '30' }]);
    const controller = new AbortController();

    const { events, error } = await collectStream(
      client({ requestMaxRetries: 1 }).stream(userRequest('hi', { signal: controller.signal })),
      (event) => {
        if (event.type === 'retrying') controller.abort();
      },
    );

    expect(events).toEqual([expect.objectContaining({ type: 'retrying', delayMs: 30_000 })]);
    expect((error as DOMException).name).toBe('AbortError');
    expect(mock.requests).toHaveLength(1);
  });

  it('a missing API key is missingKey and sends nothing', async () => {
    const { error } = await collectStream(client({ apiKey: null }).stream(userRequest('hi')));

    expect(error).toMatchObject({
      kind: 'missingKey',
      message: 'Mock Provider needs an API key, and none is saved. Enter one in Settings.',
    });
    expect(mock.requests).toHaveLength(0);
  });
});
