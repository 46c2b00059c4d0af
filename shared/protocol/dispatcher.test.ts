import { describe, expect, it, vi } from 'vitest';
import { Dispatcher, type MethodHandlers } from './dispatcher.js';
import { ErrorCode, RpcError } from './errors.js';
import { clientMethods } from './registry.js';
import type { ErrorResponse, ResponseMessage } from './wire.js';

interface Ctx {
  readonly user: string;
}

/** Handlers for every declared method; the ones a test does not override refuse to run. */
function handlers(overrides: Partial<MethodHandlers<Ctx>>): MethodHandlers<Ctx> {
  const refuse = () => {
    throw RpcError.invalidRequest('not under test');
  };
  const all = Object.fromEntries(Object.keys(clientMethods).map((method) => [method, refuse]));
  return { ...all, ...overrides } as MethodHandlers<Ctx>;
}

const ctx: Ctx = { user: 'tester' };

function expectError(response: ResponseMessage): ErrorResponse['error'] {
  if (!('error' in response)) throw new Error(`expected an error, got ${JSON.stringify(response)}`);
  return response.error;
}

const emptyList = { data: [], nextCursor: null, backwardsCursor: null, readStates: {} };

describe('Dispatcher', () => {
  it('routes a request to its handler with parsed params and the context', async () => {
    const list = vi.fn(() => emptyList);
    const dispatcher = new Dispatcher<Ctx>(handlers({ 'thread/list': list }));
    const response = await dispatcher.dispatch({ id: 7, method: 'thread/list', params: { limit: 3 } }, ctx);
    expect(response).toEqual({ id: 7, result: emptyList });
    expect(list).toHaveBeenCalledWith({ limit: 3 }, ctx);
  });

  it('answers an unknown method with -32601 naming it', async () => {
    const dispatcher = new Dispatcher<Ctx>(handlers({}));
    const response = await dispatcher.dispatch({ id: 'a', method: 'thread/explode', params: {} }, ctx);
    expect(response.id).toBe('a');
    const error = expectError(response);
    expect(error.code).toBe(ErrorCode.MethodNotFound);
    expect(error.message).toContain('thread/explode');
  });

  it('does not treat Object.prototype names as methods', async () => {
    const dispatcher = new Dispatcher<Ctx>(handlers({}));
    for (const method of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const error = expectError(await dispatcher.dispatch({ id: 1, method, params: {} }, ctx));
      expect(error.code).toBe(ErrorCode.MethodNotFound);
    }
  });

  it('rejects invalid params with -32602 naming the failing path, without calling the handler', async () => {
    const list = vi.fn(() => emptyList);
    const dispatcher = new Dispatcher<Ctx>(handlers({ 'thread/list': list }));
    const error = expectError(
      await dispatcher.dispatch({ id: 1, method: 'thread/list', params: { limit: 'ten' } }, ctx),
    );
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain('thread/list');
    expect(error.message).toContain('limit');
    expect(list).not.toHaveBeenCalled();
  });

  it('names a nested path and lists the issues in data', async () => {
    const dispatcher = new Dispatcher<Ctx>(handlers({}));
    const error = expectError(
      await dispatcher.dispatch({ id: 1, method: 'initialize', params: { clientInfo: { name: 5 } } }, ctx),
    );
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain('clientInfo.name');
    expect(error.data).toMatchObject({ issues: expect.arrayContaining([{ path: ['clientInfo', 'name'], message: expect.any(String) }]) });
  });

  it('treats missing params as an empty object, so required fields are reported by name', async () => {
    const dispatcher = new Dispatcher<Ctx>(handlers({}));
    const error = expectError(await dispatcher.dispatch({ id: 1, method: 'thread/read' }, ctx));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain('threadId');
  });

  it('rejects params that are not an object', async () => {
    const dispatcher = new Dispatcher<Ctx>(handlers({}));
    for (const params of [[1, 2], 'text', 42, true]) {
      const error = expectError(await dispatcher.dispatch({ id: 1, method: 'thread/list', params }, ctx));
      expect(error.code).toBe(ErrorCode.InvalidParams);
    }
  });

  it('rejects a blank thread name with -32602', async () => {
    const setName = vi.fn(() => ({}));
    const dispatcher = new Dispatcher<Ctx>(handlers({ 'thread/name/set': setName }));
    const error = expectError(
      await dispatcher.dispatch({ id: 1, method: 'thread/name/set', params: { threadId: 't', name: '   ' } }, ctx),
    );
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain('name');
    expect(setName).not.toHaveBeenCalled();
  });

  it('passes an RpcError thrown by a handler through unchanged', async () => {
    const dispatcher = new Dispatcher<Ctx>(
      handlers({
        'thread/read': () => {
          throw new RpcError(-32042, 'custom failure', { reason: 'runtime.unavailable', hint: 'retry later' });
        },
      }),
    );
    const error = expectError(await dispatcher.dispatch({ id: 3, method: 'thread/read', params: { threadId: 'x' } }, ctx));
    expect(error).toEqual({ code: -32042, message: 'custom failure', data: { reason: 'runtime.unavailable', hint: 'retry later' } });
  });

  it('passes an RpcError from an async handler through unchanged', async () => {
    const dispatcher = new Dispatcher<Ctx>(
      handlers({
        'thread/archive': async () => {
          await Promise.resolve();
          throw RpcError.threadNotFound('t-404');
        },
      }),
    );
    const error = expectError(await dispatcher.dispatch({ id: 3, method: 'thread/archive', params: { threadId: 't-404' } }, ctx));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.message).toContain('t-404');
  });

  it('turns any other failure into -32603 without leaking a stack, and reports it', async () => {
    const onInternalError = vi.fn();
    const boom = new Error('disk on fire');
    const dispatcher = new Dispatcher<Ctx>(
      handlers({
        'thread/list': () => {
          throw boom;
        },
      }),
      { onInternalError },
    );
    const response = await dispatcher.dispatch({ id: 9, method: 'thread/list', params: {} }, ctx);
    const error = expectError(response);
    expect(response.id).toBe(9);
    expect(error.code).toBe(ErrorCode.Internal);
    expect(error.message).toContain('thread/list');
    expect(error.message).not.toMatch(/\n\s+at /);
    expect(error.message).not.toContain('dispatcher.test');
    expect(JSON.stringify(response)).not.toContain(boom.stack!.split('\n')[1]!.trim());
    expect(onInternalError).toHaveBeenCalledWith('thread/list', boom);
  });

  it('turns a thrown non-Error value into -32603', async () => {
    const dispatcher = new Dispatcher<Ctx>(
      handlers({
        'thread/list': () => {
          throw 'a string';
        },
      }),
    );
    const error = expectError(await dispatcher.dispatch({ id: 1, method: 'thread/list', params: {} }, ctx));
    expect(error.code).toBe(ErrorCode.Internal);
  });

  it('checks results against their schema when asked to', async () => {
    const broken = handlers({ 'thread/list': () => ({ data: 'nope', nextCursor: null }) as never });
    const strict = new Dispatcher<Ctx>(broken, { validateResults: true });
    const error = expectError(await strict.dispatch({ id: 1, method: 'thread/list', params: {} }, ctx));
    expect(error.code).toBe(ErrorCode.Internal);
    expect(error.message).toContain('thread/list');
    expect(error.message).toContain('data');

    const lenient = new Dispatcher<Ctx>(broken);
    expect(await lenient.dispatch({ id: 1, method: 'thread/list', params: {} }, ctx)).toEqual({
      id: 1,
      result: { data: 'nope', nextCursor: null },
    });
  });

  it('answers a plain initialize at once and checks its result when the schemas load, reporting a broken one', async () => {
    const result = { userAgent: 'u', codexHome: '/h', wheelhouseHome: '/h', platformFamily: 'unix', platformOs: 'linux', codexProtocolVersion: '0.169.0', serverVersion: '0' };
    const broken = handlers({ initialize: () => ({ ...result, userAgent: 5 }) as never, 'thread/list': () => emptyList });
    const reported: { method: string; error: unknown }[] = [];
    const strict = new Dispatcher<Ctx>(broken, { validateResults: true, onInternalError: (method, error) => reported.push({ method, error }) });
    const answer = await strict.dispatch({ id: 1, method: 'initialize', params: { clientInfo: { name: 'c', version: '1' } } }, ctx);
    expect(answer).toEqual({ id: 1, result: { ...result, userAgent: 5 } });
    expect(await strict.dispatch({ id: 2, method: 'thread/list', params: {} }, ctx)).toEqual({ id: 2, result: emptyList });
    expect(reported).toHaveLength(1);
    expect(reported[0]!.method).toBe('initialize');
    expect(String(reported[0]!.error)).toContain('userAgent');
  });

  it('call() validates like a carrier and throws the RpcError', async () => {
    const dispatcher = new Dispatcher<Ctx>(handlers({ 'thread/list': () => emptyList }));
    await expect(dispatcher.call('thread/list', {}, ctx)).resolves.toEqual(emptyList);
    await expect(dispatcher.call('thread/list', { limit: -1 }, ctx)).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    await expect(dispatcher.call('no/such', {}, ctx)).rejects.toBeInstanceOf(RpcError);
  });
});
