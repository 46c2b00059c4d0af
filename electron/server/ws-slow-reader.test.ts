import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestRuntime } from '../../test-support/test-runtime.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { waitUntil } from '../../test-support/waiting.js';
import { RpcHost } from './rpc-host.js';
import { BEHIND_PRUNED_LOG_CLOSE_CODE, startWebServer } from './web-server.js';

/**
 * A WebSocket client that stops reading during a flood of runtime events is
 * served from the durable log at its own pace (electron/runtime/outgoing/log-paced-delivery.ts):
 * the server holds about the 1 MB threshold plus one page for it, never the
 * flood, and once it reads again it gets every event in order; it is cut
 * (close 4010, then `reset` on its replay) only when what it had not read was
 * pruned. Real runtime, real SQLite, real sockets.
 */
const temp = new TempDirs();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  temp.cleanup();
});

const TOKEN = 'test-token-0123456789';
/** The pacing threshold plus one page of 8 KB events plus what a socket write may add: far below the flood. */
const BOUND = 1024 * 1024 + 100 * 9 * 1024 + 256 * 1024;
const FLOOD_EVENTS = 4000; // 32 MB of 8 KB events

async function start(now?: () => number) {
  const home = temp.make('wheelhouse-ws-slow-');
  const runtime = createTestRuntime({ home, defaults: { cwd: home }, ...(now ? { now } : {}) });
  const host = new RpcHost(runtime);
  const server = await startWebServer(host, { token: TOKEN });
  cleanups.push(async () => {
    await server.close();
    host.close();
    await runtime.shutdown();
  });
  return { runtime, host, server };
}

/** A raw client that keeps every message's seq (no parsing per message: the flood is 32 MB). */
async function openReader(url: string) {
  const socket = new WebSocket(url);
  cleanups.push(() => socket.terminate());
  const seqs: number[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let initialized!: () => void;
  const ready = new Promise<void>((resolve) => (initialized = resolve));
  socket.on('message', (data) => {
    const text = String(data);
    if (text.startsWith('{"id":1,')) initialized();
    const seq = /"seq":(\d+),"emittedAtMs":\d+}$/.exec(text);
    if (seq) seqs.push(Number(seq[1]));
  });
  socket.send(JSON.stringify({ id: 1, method: 'initialize', params: { clientInfo: { name: 'slow-reader', version: '1' } } }));
  await ready;
  return { socket, seqs, closed };
}

async function flood(publish: () => number, sample: () => void): Promise<number[]> {
  const published: number[] = [];
  while (published.length < FLOOD_EVENTS) {
    published.push(publish());
    if (published.length % 100 === 0) {
      await new Promise((r) => setImmediate(r));
      sample();
    }
  }
  return published;
}

describe('a slow WebSocket reader', () => {
  it('stops reading during a 32 MB flood, is paced from the log with the server holding at most ~2 MB for it, and then gets every event in order', async () => {
    const { runtime, host, server } = await start();
    const reader = await openReader(server.wsUrl);
    reader.socket.pause(); // the client stops reading; the kernel buffers fill, then the server's

    let largest = 0;
    const sample = () => (largest = Math.max(largest, host.largestBacklogBytes));
    const big = 'x'.repeat(8 * 1024);
    const published = await flood(() => runtime.events.publish('thread/name/updated', { threadId: 't', threadName: big }), sample);
    await runtime.events.announced();
    sample();
    expect(largest).toBeGreaterThan(512 * 1024); // it did fall behind
    expect(largest).toBeLessThan(BOUND);

    reader.socket.resume();
    const last = published.at(-1)!;
    await waitUntil(() => reader.seqs.at(-1) === last, { what: 'the last event to arrive' });
    expect(reader.seqs).toEqual(published);
    sample();
    expect(largest).toBeLessThan(BOUND);

    // Caught up, it is live again: a new event arrives without any reading from the log.
    const next = runtime.events.publish('thread/archived', { threadId: 'after' });
    await waitUntil(() => reader.seqs.at(-1) === next, { what: 'a live event after catching up' });
    expect(reader.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('is cut with a reset close when what it had not read was pruned, and its replay then says reset', async () => {
    let clock = Date.now() - 40 * 24 * 60 * 60 * 1000;
    const { runtime, server } = await start(() => clock);
    const reader = await openReader(server.wsUrl);
    reader.socket.pause();
    const big = 'x'.repeat(8 * 1024);
    await flood(() => runtime.events.publish('thread/name/updated', { threadId: 't', threadName: big }), () => undefined);
    await runtime.events.announced();
    clock = Date.now();
    const kept = runtime.events.publish('thread/archived', { threadId: 'recent' });
    await runtime.events.announced();
    expect(runtime.services.retention.prune().events).toBeGreaterThan(0);

    reader.socket.resume();
    const closed = await reader.closed;
    expect(closed.code).toBe(BEHIND_PRUNED_LOG_CLOSE_CODE);
    expect(closed.reason).toMatch(/^reset: /);
    // Nothing after the pruned position was sent: the client reloads instead of showing holes.
    expect(reader.seqs).not.toContain(kept);

    // Reconnected, its replay from where it stopped is told to reload.
    const again = await openReader(server.wsUrl);
    const lastSeen = reader.seqs.at(-1) ?? 0;
    const answer = new Promise<string>((resolve) => again.socket.on('message', (data) => String(data).startsWith('{"id":2,') && resolve(String(data))));
    again.socket.send(JSON.stringify({ id: 2, method: 'events/replay', params: { afterSeq: lastSeen, limit: 10 } }));
    expect(JSON.parse(await answer).result.reset).toBe(true);
  });
});
