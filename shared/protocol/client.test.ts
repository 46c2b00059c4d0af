import { describe, expect, it } from 'vitest';
import { createMemoryTransportPair, type MemoryTransport } from '../../test-support/memory-transport.js';
import { RpcClient } from './client.js';
import { Dispatcher, type MethodHandlers } from './dispatcher.js';
import { ErrorCode, RpcError } from './errors.js';
import { clientMethods, type AnyNotification } from './registry.js';
import { classifyMessage } from './wire.js';

type Ctx = Record<string, never>;

function handlers(overrides: Partial<MethodHandlers<Ctx>>): MethodHandlers<Ctx> {
  const refuse = () => {
    throw RpcError.invalidRequest('not under test');
  };
  const all = Object.fromEntries(Object.keys(clientMethods).map((method) => [method, refuse]));
  return { ...all, ...overrides } as MethodHandlers<Ctx>;
}

/** A minimal server loop: every request on `transport` goes through the dispatcher. */
function serve(transport: MemoryTransport, dispatcher: Dispatcher<Ctx>): void {
  transport.onMessage((text) => {
    const classified = classifyMessage(JSON.parse(text));
    if (classified?.kind !== 'request') return;
    void dispatcher.dispatch(classified.message, {}).then((response) => transport.send(JSON.stringify(response)));
  });
}

function connected(overrides: Partial<MethodHandlers<Ctx>>) {
  const [clientEnd, serverEnd] = createMemoryTransportPair();
  serve(serverEnd, new Dispatcher<Ctx>(handlers(overrides), { validateResults: true }));
  return { client: new RpcClient(clientEnd), clientEnd, serverEnd };
}

describe('RpcClient over an in-memory transport pair', () => {
  it('resolves a typed request with the handler result', async () => {
    const { client } = connected({ 'thread/loaded/list': () => ({ data: ['a', 'b'], nextCursor: null }) });
    await expect(client.request('thread/loaded/list', {})).resolves.toEqual({ data: ['a', 'b'], nextCursor: null });
  });

  it('rejects with an RpcError carrying the server code, message and data', async () => {
    const { client } = connected({});
    const error = await client.request('thread/list', { limit: -1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining('limit') });
    expect((error as RpcError).data).toMatchObject({ issues: [{ path: ['limit'] }] });
  });

  it('pairs responses with their requests when they come back out of order', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { client } = connected({
      'thread/loaded/list': async ({ cursor }) => {
        if (cursor === 'first') await gate;
        return { data: [cursor ?? ''], nextCursor: null };
      },
    });
    let slowSettled = false;
    const slow = client.request('thread/loaded/list', { cursor: 'first' }).finally(() => (slowSettled = true));
    const fast = client.request('thread/loaded/list', { cursor: 'second' });
    await expect(fast).resolves.toEqual({ data: ['second'], nextCursor: null });
    expect(slowSettled).toBe(false);
    release();
    await expect(slow).resolves.toEqual({ data: ['first'], nextCursor: null });
  });

  it('delivers notifications with their seq, typed by method, until unsubscribed', async () => {
    const { client, serverEnd } = connected({});
    const all: AnyNotification[] = [];
    client.onNotification((n) => all.push(n));
    const archived: Array<{ threadId: string; seq: number | undefined }> = [];
    const stop = client.on('thread/archived', (params, seq) => archived.push({ threadId: params.threadId, seq }));
    const renamed = new Promise<string | null>((resolve) => {
      client.on('thread/name/updated', (params) => resolve(params.threadName));
    });

    serverEnd.send(JSON.stringify({ method: 'thread/archived', params: { threadId: 't1' }, seq: 5 }));
    serverEnd.send(JSON.stringify({ method: 'thread/name/updated', params: { threadId: 't1', threadName: 'Hi' }, seq: 6 }));
    await expect(renamed).resolves.toBe('Hi');
    expect(archived).toEqual([{ threadId: 't1', seq: 5 }]);

    stop();
    const unarchived = new Promise<void>((resolve) => client.on('thread/unarchived', () => resolve()));
    serverEnd.send(JSON.stringify({ method: 'thread/archived', params: { threadId: 't2' }, seq: 7 }));
    serverEnd.send(JSON.stringify({ method: 'thread/unarchived', params: { threadId: 't2' }, seq: 8 }));
    await unarchived;
    expect(archived).toHaveLength(1);
    expect(all.map((n) => n.seq)).toEqual([5, 6, 7, 8]);
  });

  it('ignores malformed text, unknown ids and id-less errors, and keeps working', async () => {
    const { client, serverEnd } = connected({ 'thread/loaded/list': () => ({ data: [], nextCursor: null }) });
    serverEnd.send('{not json');
    serverEnd.send(JSON.stringify({ id: 999, result: {} }));
    serverEnd.send(JSON.stringify({ id: null, error: { code: ErrorCode.ParseError, message: 'parse error' } }));
    serverEnd.send(JSON.stringify([1, 2, 3]));
    await expect(client.request('thread/loaded/list', {})).resolves.toEqual({ data: [], nextCursor: null });
  });

  it('rejects pending and later requests once the channel closes', async () => {
    const { client, clientEnd } = connected({ 'thread/read': () => new Promise(() => undefined) });
    const pending = client.request('thread/read', { threadId: 't' });
    clientEnd.close('peer went away');
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.Internal, message: expect.stringContaining('peer went away') });
    await expect(client.request('thread/loaded/list', {})).rejects.toMatchObject({
      message: expect.stringContaining('peer went away'),
    });
  });

  it('rejects pending requests and stops listening when disposed', async () => {
    const { client, serverEnd } = connected({ 'thread/read': () => new Promise(() => undefined) });
    const seen: string[] = [];
    client.onNotification((n) => seen.push(n.method));
    const pending = client.request('thread/read', { threadId: 't' });
    client.dispose();
    await expect(pending).rejects.toMatchObject({ message: expect.stringContaining('disposed') });
    serverEnd.send(JSON.stringify({ method: 'thread/archived', params: { threadId: 't' } }));
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).toEqual([]);
  });

  it('rejects a result that breaks its schema when asked to validate, and passes a good one', async () => {
    const [clientEnd, serverEnd] = createMemoryTransportPair();
    const client = new RpcClient(clientEnd, { validateResults: true });
    // The first answer is malformed, the second well-formed.
    const answers = [{ data: 'not a list' }, { data: [], nextCursor: null }];
    serverEnd.onMessage((text) => {
      const { id } = JSON.parse(text) as { id: number };
      serverEnd.send(JSON.stringify({ id, result: answers.shift() }));
    });
    await expect(client.request('thread/loaded/list', {})).rejects.toMatchObject({
      code: ErrorCode.Internal,
      message: expect.stringContaining('result of thread/loaded/list broke its schema'),
    });
    await expect(client.request('thread/loaded/list', {})).resolves.toEqual({ data: [], nextCursor: null });
  });

  it('rejects a request whose send throws, without leaving it pending', async () => {
    const [clientEnd] = createMemoryTransportPair();
    const client = new RpcClient({
      ...clientEnd,
      send: () => {
        throw new Error('pipe broken');
      },
      onMessage: clientEnd.onMessage,
      onClose: clientEnd.onClose,
    });
    await expect(client.request('thread/loaded/list', {})).rejects.toMatchObject({
      code: ErrorCode.Internal,
      message: expect.stringContaining('pipe broken'),
    });
  });
});
