import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, MAX_MESSAGE_BYTES, type ResponseMessage } from '../../shared/protocol/index.js';
import { startAppServer, type AppServerProcess } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { TempDirs } from '../../test-support/temp-dir.js';

const temp = new TempDirs();
afterAll(async () => {
  await killAllChildren();
  temp.cleanup();
});

function errorOf(response: ResponseMessage) {
  if (!('error' in response)) throw new Error(`expected an error response, got ${JSON.stringify(response)}`);
  return response.error;
}

describe('wheelhouse app-server (stdio), one client per process', () => {
  const started: AppServerProcess[] = [];
  afterEach(async () => {
    for (const server of started.splice(0)) await server.process.stop('SIGKILL');
  });
  const start = (home = temp.make()) => {
    const server = startAppServer(home);
    started.push(server);
    return server;
  };

  it('answers initialize, then serves thread methods with notifications', async () => {
    const home = temp.make();
    const { peer, endInput, exited } = start(home);
    const init = await peer.initialize();
    expect(init).toMatchObject({ wheelhouseHome: home, serverVersion: expect.any(String) });

    const { thread } = await peer.call('thread/start', { cwd: home });
    const started = await peer.inbox.notification('thread/started');
    expect(started.params).toEqual({ thread });
    expect(started.seq).toEqual(expect.any(Number));

    await peer.call('thread/name/set', { threadId: thread.id, name: 'Over stdio' });
    const renamed = await peer.inbox.notification('thread/name/updated');
    expect(renamed.seq).toBeGreaterThan(started.seq!);
    expect((await peer.call('thread/list', {})).data.map((t) => [t.id, t.name])).toEqual([[thread.id, 'Over stdio']]);
    expect((await peer.call('thread/loaded/list', {})).data).toEqual([thread.id]);

    endInput();
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(peer.inbox.garbage).toEqual([]);
  });

  it('carries a long message with non-ASCII text exactly (it leaves as its UTF-8 bytes)', async () => {
    const { peer } = start();
    await peer.initialize();
    const line = 'Grüße, 日本語, 🚀 — ok';
    const result = await peer.call('command/exec', { command: ['/bin/sh', '-c', `yes '${line}' | head -n 2000`], cwd: temp.make() });
    expect(result).toEqual({ exitCode: 0, stdout: `${line}\n`.repeat(2000), stderr: '' });
    expect(peer.inbox.garbage).toEqual([]);
  });

  it('rejects requests before initialize, and a second initialize', async () => {
    const { peer } = start();
    const early = errorOf(await peer.request('thread/list', {}));
    expect(early.code).toBe(ErrorCode.InvalidRequest);
    expect(early.message).toMatch(/initialize/);
    await peer.initialize();
    expect(errorOf(await peer.request('initialize', { clientInfo: { name: 'again', version: '1' } })).code).toBe(
      ErrorCode.InvalidRequest,
    );
    expect((await peer.call('thread/list', {})).data).toEqual([]);
  });

  it('refuses an initialize whose opt-out list is over-long, naming it', async () => {
    const { peer } = start();
    const optOut = errorOf(
      await peer.request('initialize', {
        clientInfo: { name: 'x', version: '1' },
        capabilities: { optOutNotificationMethods: Array.from({ length: 500 }, (_, i) => `m${i}`) },
      }),
    );
    expect(optOut.code).toBe(ErrorCode.InvalidParams);
    expect(optOut.message).toContain('optOutNotificationMethods');
    await peer.initialize();
  });

  it('answers requests pipelined behind initialize in order', async () => {
    const { peer } = start();
    const init = peer.initialize();
    const list = peer.request('thread/list', {});
    await init;
    expect(await list).toMatchObject({ result: { data: [] } });
  });

  it('exits with code 0 when stdin ends, after answering what it was sent', async () => {
    const home = temp.make();
    const server = start(home);
    await server.peer.initialize();
    const answered = server.peer.request('thread/start', { cwd: home });
    server.endInput();
    expect(await answered).toMatchObject({ result: { thread: expect.any(Object) } });
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it('keeps durable threads across a restart on the same home', async () => {
    const home = temp.make();
    const first = start(home);
    await first.peer.initialize();
    const { thread } = await first.peer.call('thread/start', { cwd: home });
    first.endInput();
    expect((await first.exited).code).toBe(0);

    const second = start(home);
    await second.peer.initialize();
    expect((await second.peer.call('thread/list', {})).data.map((t) => t.id)).toEqual([thread.id]);
    second.endInput();
    expect((await second.exited).code).toBe(0);
  });
});

describe('wheelhouse app-server (stdio), bad input on one long-lived connection', () => {
  let server: AppServerProcess;
  let peer: AppServerProcess['peer'];
  beforeAll(async () => {
    server = startAppServer(temp.make());
    peer = server.peer;
    await peer.initialize();
  });
  afterAll(async () => {
    server.endInput();
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it('answers malformed JSON with -32700 and id null, then keeps serving', async () => {
    peer.sendRaw('{"id": 1, "method": ');
    const error = errorOf(await peer.inbox.response(null));
    expect(error.code).toBe(ErrorCode.ParseError);
    expect((await peer.call('thread/list', {})).data).toEqual([]);
  });

  it('answers a JSON value that is no request with -32600', async () => {
    peer.sendRaw('[1,2,3]');
    expect(errorOf(await peer.inbox.response(null)).code).toBe(ErrorCode.InvalidRequest);
    peer.sendRaw(JSON.stringify({ id: 41, method: 7 }));
    expect(errorOf(await peer.inbox.response(41)).code).toBe(ErrorCode.InvalidRequest);
  });

  it('answers an unknown method with -32601', async () => {
    const error = errorOf(await peer.request('thread/teleport', {}));
    expect(error.code).toBe(ErrorCode.MethodNotFound);
    expect(error.message).toContain('thread/teleport');
  });

  it('answers wrong param types with -32602 naming the field', async () => {
    const error = errorOf(await peer.request('thread/list', { limit: 'ten' }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain('limit');
    const blank = errorOf(await peer.request('thread/name/set', { threadId: 'x', name: ' ' }));
    expect(blank.code).toBe(ErrorCode.InvalidParams);
  });

  it('answers an unknown thread id with -32600 naming it', async () => {
    const error = errorOf(await peer.request('thread/read', { threadId: 'ghost-thread' }));
    expect(error).toMatchObject({ code: ErrorCode.InvalidRequest, message: expect.stringContaining('ghost-thread') });
  });

  it('refuses a line over 8 MiB with a typed error and keeps serving', async () => {
    const huge = JSON.stringify({ id: 99, method: 'thread/list', params: { pad: 'x'.repeat(MAX_MESSAGE_BYTES + 1024) } });
    peer.sendRaw(huge);
    const error = errorOf(await peer.inbox.response(null));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.message).toMatch(/exceeds/);
    const { thread } = await peer.call('thread/start', {});
    expect(thread.id).toEqual(expect.any(String));
    expect(peer.inbox.garbage).toEqual([]);
  });

  it('answers params nested 1,500 levels deep with -32602 for every method, and keeps serving', async () => {
    // Built as text: JSON.stringify itself overflows on values this deep.
    const deepObject = `${'{"a":'.repeat(1500)}"bottom"${'}'.repeat(1500)}`;
    peer.sendRaw(`{"id":"deep-config","method":"config/value/write","params":{"keyPath":"model_providers.x","value":${deepObject}}}`);
    const config = errorOf(await peer.inbox.response('deep-config'));
    expect(config.code).toBe(ErrorCode.InvalidParams);
    expect(config.message).toMatch(/nested deeper than 64 levels/);
    const deepArray = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    for (const method of ['thread/list', 'turn/start', 'thread/start', 'config/batchWrite']) {
      peer.sendRaw(`{"id":"deep-${method}","method":"${method}","params":{"nested":${deepArray}}}`);
      const error = errorOf(await peer.inbox.response(`deep-${method}`));
      expect({ method, code: error.code }).toEqual({ method, code: ErrorCode.InvalidParams });
    }
    expect((await peer.call('config/read', {})).providers.length).toBeGreaterThan(0);
  });

  it('answers over-long arrays in params with -32602 naming the field', async () => {
    const input = Array.from({ length: 20_000 }, () => ({ type: 'text', text: 'x' }));
    const turn = errorOf(await peer.request('turn/start', { threadId: 'x', input }));
    expect(turn.code).toBe(ErrorCode.InvalidParams);
    expect(turn.message).toContain('input');
  });

  it('has sent nothing but valid protocol messages', () => {
    expect(peer.inbox.garbage).toEqual([]);
  });
});
