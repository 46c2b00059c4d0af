import { describe, expect, it } from 'vitest';
import {
  clientMethods,
  Dispatcher,
  ErrorCode,
  RpcClient,
  RpcError,
  ServerRequestError,
  type MethodHandlers,
  type ServerRequestParamsOf,
} from '../../shared/protocol/index.js';
import { createMemoryTransportPair } from '../../test-support/memory-transport.js';
import { waitUntil } from '../../test-support/waiting.js';
import type { RequestContext } from '../runtime/context.js';
import { OutgoingSender } from '../runtime/outgoing/outgoing-sender.js';
import { RpcHost } from './rpc-host.js';

/**
 * Server-to-client requests (`item/tool/call`, declared in
 * shared/protocol/methods/dynamic-tools.ts) from the real OutgoingSender
 * through a real RpcConnection to the real typed RpcClient over a linked
 * in-memory channel.
 */
function handlers(): MethodHandlers<RequestContext> {
  const refuse = () => {
    throw RpcError.invalidRequest('not under test');
  };
  const all: Record<string, unknown> = Object.fromEntries(Object.keys(clientMethods).map((method) => [method, refuse]));
  return {
    ...all,
    initialize: () => ({ userAgent: 'test', wheelhouseHome: '/tmp', platformFamily: 'unix', platformOs: 'linux', serverVersion: '0' }),
  } as unknown as MethodHandlers<RequestContext>;
}

/** A connection to an initialized client: the typed RpcClient, or (raw) test code writing JSON itself. */
async function connected(options: { raw?: boolean } = {}) {
  const [clientEnd, serverEnd] = createMemoryTransportPair();
  const sent: string[] = [];
  const outgoing = new OutgoingSender();
  const host = new RpcHost({ dispatcher: new Dispatcher<RequestContext>(handlers()), outgoing });
  const connection = host.connect('in-process', {
    send: (text) => {
      sent.push(text);
      serverEnd.send(text);
    },
  });
  serverEnd.onMessage((text) => void connection.receive(text));
  const client = options.raw ? undefined : new RpcClient(clientEnd);
  if (client) await client.request('initialize', { clientInfo: { name: 'test', version: '0' } });
  else {
    clientEnd.send(JSON.stringify({ id: 0, method: 'initialize', params: { clientInfo: { name: 'raw', version: '0' } } }));
    await waitUntil(() => connection.isInitialized, { what: 'the connection to be initialized' });
  }
  // The tool's owner is this connection alone: its answer, refusal or departure settles the call.
  const request = (options: { timeoutMs: number; signal?: AbortSignal }) =>
    outgoing.request('item/tool/call', call, { threadId: call.threadId, audience: { kind: 'one', connectionId: connection.connectionId }, ...options });
  return { connection, host, request, client: client!, clientEnd, serverEnd, sent };
}

const call: ServerRequestParamsOf<'item/tool/call'> = {
  threadId: 'thr-1',
  turnId: 'turn-1',
  callId: 'call-1',
  namespace: 'tau_bench',
  tool: 'get_reservation',
  arguments: { reservation_id: 'ABC123' },
};

describe('server requests: item/tool/call', () => {
  it('reaches the client handler with typed params and resolves with its answer', async () => {
    const { request, client } = await connected();
    const seen: unknown[] = [];
    client.handle('item/tool/call', (params) => {
      seen.push(params);
      return { success: true, contentItems: [{ type: 'inputText', text: '{"status":"confirmed"}' }] };
    });
    const answer = await request({ timeoutMs: 10_000 });
    expect(answer).toEqual({ success: true, contentItems: [{ type: 'inputText', text: '{"status":"confirmed"}' }] });
    expect(seen).toEqual([call]);
  });

  it('fails typed when the client has no handler, refuses, or answers outside the schema', async () => {
    const { request, client } = await connected();
    const missing = await request({ timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ServerRequestError);
    expect(missing).toMatchObject({ reason: 'refused', clientError: { code: ErrorCode.MethodNotFound } });

    const stop = client.handle('item/tool/call', () => {
      throw new RpcError(ErrorCode.InvalidRequest, 'no such reservation');
    });
    await expect(request({ timeoutMs: 10_000 })).rejects.toMatchObject({
      reason: 'refused',
      message: expect.stringMatching(/no such reservation/),
    });
    stop();
    // The typed client checks its own answer; a malformed one becomes an error, not a bad result.
    client.handle('item/tool/call', () => ({ success: 'yes' }) as never);
    await expect(request({ timeoutMs: 10_000 })).rejects.toMatchObject({ reason: 'refused' });
  });

  it('refuses a raw answer that breaks the result schema, times out, ignores duplicate answers and fails on close', async () => {
    const { connection, host, request, clientEnd, sent } = await connected({ raw: true });
    const sentIds = () => sent.map((t) => JSON.parse(t) as { id?: string; method?: string }).filter((m) => m.method === 'item/tool/call').map((m) => m.id!);

    const bad = request({ timeoutMs: 10_000 });
    await waitUntil(() => sentIds().length === 1, { what: 'one request sent' });
    clientEnd.send(JSON.stringify({ id: sentIds()[0], result: { success: true } }));
    await expect(bad).rejects.toMatchObject({ reason: 'badAnswer', message: expect.stringMatching(/contentItems/) });

    await expect(request({ timeoutMs: 20 })).rejects.toMatchObject({ reason: 'timeout' });

    const once = request({ timeoutMs: 10_000 });
    await waitUntil(() => sentIds().length === 3, { what: 'three requests sent' });
    const id = sentIds()[2];
    clientEnd.send(JSON.stringify({ id, result: { success: true, contentItems: [] } }));
    clientEnd.send(JSON.stringify({ id, result: { success: false, contentItems: [] } }));
    await expect(once).resolves.toEqual({ success: true, contentItems: [] });

    const controller = new AbortController();
    const canceled = request({ timeoutMs: 10_000, signal: controller.signal });
    controller.abort();
    await expect(canceled).rejects.toMatchObject({ reason: 'canceled' });

    const open = request({ timeoutMs: 10_000 });
    host.disconnect(connection);
    await expect(open).rejects.toMatchObject({ reason: 'closed' });
    await expect(request({ timeoutMs: 10_000 })).rejects.toMatchObject({ reason: 'closed' });
  });

  it('the client refuses a server request whose params break the schema, without calling its handler', async () => {
    const [clientEnd, serverEnd] = createMemoryTransportPair();
    const client = new RpcClient(clientEnd);
    let called = false;
    client.handle('item/tool/call', () => {
      called = true;
      return { success: true, contentItems: [] };
    });
    const answers: unknown[] = [];
    serverEnd.onMessage((text) => answers.push(JSON.parse(text)));
    serverEnd.send(JSON.stringify({ id: 7, method: 'item/tool/call', params: { threadId: 'x' } }));
    await waitUntil(() => answers.length === 1, { what: 'one answer' });
    expect(answers[0]).toMatchObject({ id: 7, error: { code: ErrorCode.InvalidParams } });
    expect(called).toBe(false);
  });
});
