import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestRuntime } from '../../../test-support/test-runtime.js';
import { SseSubscriber } from '../../../test-support/sse-client.js';
import { TempDirs } from '../../../test-support/temp-dir.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { RpcHost } from '../rpc-host.js';
import { startWebServer, type RunningWebServer } from '../web-server.js';

/**
 * SSE limits that need a controlled runtime: a pruned log (reset) and a
 * client that stops reading (paced from the log). Real runtime, real SQLite, real sockets.
 */
const temp = new TempDirs();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  temp.cleanup();
});

async function start(options: { now?: () => number; maxBufferedBytes?: number; keepaliveMs?: number; onBacklog?: (bytes: number) => void } = {}) {
  const home = temp.make('wheelhouse-sse-');
  const runtime = createTestRuntime({ home, defaults: { cwd: home }, ...(options.now ? { now: options.now } : {}) });
  const host = new RpcHost(runtime);
  const server: RunningWebServer = await startWebServer(host, {
    token: 'test-token-0123456789',
    sse: {
      ...(options.maxBufferedBytes !== undefined ? { maxBufferedBytes: options.maxBufferedBytes } : {}),
      ...(options.keepaliveMs !== undefined ? { keepaliveMs: options.keepaliveMs } : {}),
      ...(options.onBacklog ? { onBacklog: options.onBacklog } : {}),
    },
  });
  cleanups.push(async () => {
    await server.close();
    host.close();
    await runtime.shutdown();
  });
  const open = (route: string) =>
    SseSubscriber.open(`http://127.0.0.1:${server.port}/v1${route}`, { headers: { authorization: 'Bearer test-token-0123456789' } }).then(
      (s) => {
        cleanups.push(() => s.close());
        return s;
      },
    );
  return { runtime, server, open };
}

describe('SSE event stream limits', () => {
  it('tells a client whose since_seq the pruned log no longer covers to reset, then streams live', async () => {
    let clock = Date.now() - 40 * 24 * 60 * 60 * 1000;
    const { runtime, open } = await start({ now: () => clock });
    for (let i = 0; i < 5; i++) runtime.events.publish('thread/archived', { threadId: `old-${i}` });
    clock = Date.now();
    runtime.events.publish('thread/archived', { threadId: 'recent' });
    expect(runtime.services.retention.prune().events).toBeGreaterThanOrEqual(5);

    const { oldestSeq } = runtime.events.replay(0, 1);
    expect(oldestSeq).toBeGreaterThan(2);
    const stale = await open('/events?since_seq=1');
    const reset = await stale.waitForEvent('reset');
    expect(reset.json).toMatchObject({ since_seq: 1, oldest_seq: oldestSeq, latest_seq: runtime.events.lastSeq });
    expect(reset.id).toBe(runtime.events.lastSeq);
    const live = runtime.events.publish('thread/archived', { threadId: 'after-reset' });
    const next = await stale.waitFor((e) => e.id === live);
    expect(next.event).toBe('thread/archived');
    expect(stale.events.filter((e) => e.event === 'thread/archived')).toHaveLength(1);

    // A client that is still covered replays normally, without a reset.
    const current = await open(`/events?since_seq=${oldestSeq - 1}`);
    await current.waitFor((e) => e.id === live);
    expect(current.events.some((e) => e.event === 'reset')).toBe(false);
  });

  it('sends keepalive comments on an idle stream', async () => {
    const { open } = await start({ keepaliveMs: 50 });
    const idle = await open('/events');
    await waitUntil(() => idle.comments >= 3, { what: 'three keepalive comments' });
  });

  it('paces a client that stops reading from the log: nothing piles up, and once it reads again it gets every event, in order, uncut', async () => {
    let largestBacklog = 0;
    const { runtime, server } = await start({ maxBufferedBytes: 256 * 1024, onBacklog: (bytes) => (largestBacklog = Math.max(largestBacklog, bytes)) });
    const socket = net.connect(server.port, '127.0.0.1');
    cleanups.push(() => void socket.destroy());
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer test-token-0123456789\r\nAccept: text/event-stream\r\n\r\n`,
    );
    const received: Buffer[] = [];
    // The end of what arrived so far, so waiting for the last id does not re-join 32 MB on every check.
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      tail = (tail + chunk.toString('latin1')).slice(-32 * 1024); // longer than one 8 KB event
    });
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.pause(); // the client stops reading; the kernel buffers fill, then the server's

    const big = 'x'.repeat(8 * 1024);
    const published: number[] = [];
    // 32 MB of events, four times what the stream used to hold before it cut a client.
    while (published.length < 4000) {
      published.push(runtime.events.publish('thread/name/updated', { threadId: 't', threadName: big }));
      if (published.length % 100 === 0) await new Promise((r) => setImmediate(r));
    }
    await runtime.events.announced();
    // Held in this process: the threshold plus at most one page of frames, never the flood.
    expect(largestBacklog).toBeLessThan(256 * 1024 + 100 * 9 * 1024 + 64 * 1024);

    socket.resume();
    const last = published.at(-1)!;
    await waitUntil(() => tail.includes(`id: ${last}\n`), { what: 'the last event to arrive' });
    const text = Buffer.concat(received).toString('utf8');
    expect(text).not.toMatch(/event: (cut|reset)/);
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(published);
    expect(largestBacklog).toBeLessThan(256 * 1024 + 100 * 9 * 1024 + 64 * 1024);
  }, 120_000); // 32 MB through SQLite and a socket: seconds on a quiet machine, far more on a loaded one
});
