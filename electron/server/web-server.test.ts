import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, MAX_MESSAGE_BYTES, type ResponseMessage } from '../../shared/protocol/index.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { startServe, type ServeProcess } from '../../test-support/serve-process.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { connectWs, tryConnectWs, type WsPeer } from '../../test-support/ws-peer.js';

const temp = new TempDirs();
let server: ServeProcess;
const sockets: WsPeer[] = [];

beforeAll(async () => {
  server = await startServe({ home: temp.make() });
});
afterEach(() => {
  for (const ws of sockets.splice(0)) ws.socket.terminate();
});
afterAll(async () => {
  await killAllChildren();
  temp.cleanup();
});

/** A connected, initialized client the test cleans up afterwards. */
async function client(name = 'ws-test'): Promise<WsPeer> {
  const ws = await connectWs(server.wsUrl);
  sockets.push(ws);
  await ws.peer.initialize(name);
  return ws;
}

function errorOf(response: ResponseMessage) {
  if (!('error' in response)) throw new Error(`expected an error response, got ${JSON.stringify(response)}`);
  return response.error;
}

function withToken(token: string | null): string {
  const url = new URL(server.wsUrl);
  if (token === null) url.searchParams.delete('token');
  else url.searchParams.set('token', token);
  return url.toString();
}

describe('wheelhouse serve (WebSocket)', () => {
  it('prints a loopback URL carrying the token', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/#token=${server.token}`);
    expect(server.wsUrl).toBe(`ws://127.0.0.1:${server.port}/rpc?token=${server.token}`);
    expect(server.token.length).toBeGreaterThanOrEqual(16);
  });

  it('refuses a missing or wrong token with 401', async () => {
    expect(await tryConnectWs(withToken(null))).toEqual({ kind: 'refused', status: 401 });
    expect(await tryConnectWs(withToken('wrong'))).toEqual({ kind: 'refused', status: 401 });
    expect(await tryConnectWs(withToken(`${server.token}x`))).toEqual({ kind: 'refused', status: 401 });
  });

  it('refuses a page from a foreign Origin, and accepts its own origin', async () => {
    for (const origin of ['https://evil.example', 'http://127.0.0.1.evil.example', `http://127.0.0.1:${server.port + 1}`]) {
      expect(await tryConnectWs(server.wsUrl, { origin })).toEqual({ kind: 'refused', status: 403 });
    }
    const own = await tryConnectWs(server.wsUrl, { origin: `http://127.0.0.1:${server.port}` });
    expect(own.kind).toBe('open');
    if (own.kind === 'open') own.ws.socket.terminate();
  });

  it('refuses other paths', async () => {
    const url = new URL(server.wsUrl);
    url.pathname = '/other';
    expect(await tryConnectWs(url.toString())).toEqual({ kind: 'refused', status: 404 });
  });

  it('rejects requests before initialize', async () => {
    const ws = await connectWs(server.wsUrl);
    sockets.push(ws);
    expect(errorOf(await ws.peer.request('thread/list', {})).code).toBe(ErrorCode.InvalidRequest);
  });

  it('delivers the same notifications, with the same seq, to every client', async () => {
    const clients = await Promise.all([client('a'), client('b'), client('c')]);
    const [driver] = clients;
    const { thread } = await driver!.peer.call('thread/start', {});
    await driver!.peer.call('thread/name/set', { threadId: thread.id, name: 'shared' });
    const seen: number[][] = [];
    for (const ws of clients) {
      const started = await ws.peer.inbox.notification('thread/started');
      const renamed = await ws.peer.inbox.notification('thread/name/updated');
      expect(started.params).toEqual({ thread });
      expect(renamed.params).toEqual({ threadId: thread.id, threadName: 'shared' });
      expect(renamed.seq).toBeGreaterThan(started.seq!);
      seen.push([started.seq!, renamed.seq!]);
    }
    expect(seen).toEqual([seen[0], seen[0], seen[0]]);
  });

  it('carries a long message with non-ASCII text exactly (it leaves as its UTF-8 bytes)', async () => {
    const ws = await client();
    const line = 'Grüße, 日本語, 🚀 — ok';
    const result = await ws.peer.call('command/exec', { command: ['/bin/sh', '-c', `yes '${line}' | head -n 2000`], cwd: temp.make() });
    expect(result).toEqual({ exitCode: 0, stdout: `${line}\n`.repeat(2000), stderr: '' });
  });

  it('a client vanishing mid-request does not disturb the others', async () => {
    const watcher = await client('watcher');
    const leaver = await client('leaver');
    leaver.peer.sendRaw(JSON.stringify({ id: 1, method: 'thread/start', params: {} }));
    leaver.socket.terminate();
    // The request still ran: the others hear about the thread it made.
    const started = await watcher.peer.inbox.notification('thread/started');
    expect(started.params).toMatchObject({ thread: { id: expect.any(String) } });
    const { thread } = await watcher.peer.call('thread/start', {});
    expect((await watcher.peer.inbox.notification('thread/started')).params).toEqual({ thread });
    const late = await client('late');
    expect((await late.peer.call('thread/list', {})).data.map((t) => t.id)).toContain(thread.id);
  });

  it('answers malformed JSON with -32700 and keeps the connection', async () => {
    const ws = await client();
    ws.peer.sendRaw('{"id": 1,');
    expect(errorOf(await ws.peer.inbox.response(null)).code).toBe(ErrorCode.ParseError);
    expect(errorOf(await ws.peer.request('nope/nope', {})).code).toBe(ErrorCode.MethodNotFound);
    expect(errorOf(await ws.peer.request('thread/list', { limit: 'x' })).message).toContain('limit');
  });

  it('refuses a message over 8 MiB with a typed error and keeps serving', async () => {
    const ws = await client();
    const other = await client('bystander');
    ws.peer.sendRaw(JSON.stringify({ id: 5, method: 'thread/list', params: { pad: 'x'.repeat(MAX_MESSAGE_BYTES + 16) } }));
    const error = errorOf(await ws.peer.inbox.response(null));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.message).toMatch(/exceeds/);
    expect((await ws.peer.call('thread/loaded/list', {})).data).toEqual(expect.any(Array));
    expect((await other.peer.call('thread/loaded/list', {})).data).toEqual(expect.any(Array));
  });

  it('closes a connection that sends a frame far over the cap; others keep working', async () => {
    const ws = await client();
    const other = await client('bystander');
    ws.socket.send('x'.repeat(MAX_MESSAGE_BYTES * 2));
    const closed = await ws.closed;
    expect(closed.code).toBe(1009);
    expect((await other.peer.call('thread/loaded/list', {})).data).toEqual(expect.any(Array));
  });

  it('answers a binary frame with a typed error and keeps the connection', async () => {
    const ws = await client();
    ws.socket.send(Buffer.from(JSON.stringify({ id: 3, method: 'thread/list', params: {} })), { binary: true });
    const error = errorOf(await ws.peer.inbox.response(null));
    expect([ErrorCode.ParseError, ErrorCode.InvalidRequest]).toContain(error.code);
    expect((await ws.peer.call('thread/list', {})).data).toEqual(expect.any(Array));
    expect(ws.peer.inbox.garbage).toEqual([]);
  });

  it('shuts down cleanly on SIGTERM with exit code 0', async () => {
    const own = await startServe({ home: temp.make() });
    const ws = await connectWs(own.wsUrl);
    await ws.peer.initialize();
    expect(await own.stop()).toEqual({ code: 0, signal: null });
    expect((await ws.closed).code).toBeGreaterThan(0);
  });
});
