/**
 * The HTTP API's event streams under load, on a real runtime and web server:
 *  - fan-out: 20 SSE subscribers (in a child process) follow one streaming
 *    turn from an in-process model; events/s each receives, and the host's
 *    event-loop delay p99 while it serves them;
 *  - replay: 100,000 logged events, then a new subscriber from since_seq=0;
 *    the time until it receives the first event published after it connected
 *    (replay done, live).
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { ModelClient, ModelStreamEvent } from '../electron/model/types.js';
import type { RequestContext } from '../electron/runtime/context.js';
import { createTestRuntime } from '../test-support/test-runtime.js';
import { RpcHost } from '../electron/server/rpc-host.js';
import { startWebServer } from '../electron/server/web-server.js';

const round1 = (n: number) => Math.round(n * 10) / 10;
const ctx: RequestContext = { session: { connectionId: 'bench', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

/** Yields `total` deltas at `perSecond` on average. */
function pacedModel(total: number, perSecond: number): ModelClient {
  return {
    stream: async function* (): AsyncIterable<ModelStreamEvent> {
      const start = performance.now();
      for (let i = 0; i < total; i++) {
        const wait = start + (i * 1000) / perSecond - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        yield { type: 'textDelta', delta: `tok${i} ` };
      }
      yield { type: 'done', finishReason: 'stop' };
    },
    listModels: async () => [],
  };
}

export async function sseFanout(options: { home: string; subscribers: number; deltas: number; perSecond: number }) {
  const runtime = createTestRuntime({
    home: options.home,
    bindModel: async () => ({ client: pacedModel(options.deltas, options.perSecond), model: 'bench', contextWindow: null }),
  });
  const host = new RpcHost(runtime);
  const server = await startWebServer(host, {});
  const { thread } = await runtime.dispatcher.call('thread/start', {}, ctx);
  const url = `${server.apiUrl}/threads/${thread.id}/events`;
  const child = fork(fileURLToPath(new URL('./sse-clients.mjs', import.meta.url)), [url, server.token, String(options.subscribers)]);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  try {
    await new Promise<void>((resolve) => child.once('message', () => resolve()));
    const result = new Promise<{ counts: number[]; seconds: number }>((resolve) =>
      child.once('message', (m) => resolve(m as { counts: number[]; seconds: number })),
    );
    loop.enable();
    await runtime.dispatcher.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'go' }] }, ctx);
    const { counts, seconds } = await result;
    loop.disable();
    return {
      subscribers: options.subscribers,
      deltasPerSubscriber: Math.min(...counts),
      eventsPerSecondPerSubscriber: Math.round(Math.min(...counts) / seconds),
      eventsPerSecondDelivered: Math.round(counts.reduce((a, b) => a + b, 0) / seconds),
      hostEventLoopP99Ms: round1(loop.percentile(99) / 1e6),
      hostEventLoopMaxMs: round1(loop.max / 1e6),
    };
  } finally {
    child.kill();
    await server.close();
    host.close();
    await runtime.shutdown();
  }
}

export async function sseReplay(options: { home: string; events: number }) {
  const runtime = createTestRuntime({ home: options.home });
  const host = new RpcHost(runtime);
  const server = await startWebServer(host, {});
  try {
    for (let i = 0; i < options.events; i++) {
      runtime.events.publish(
        'item/agentMessage/delta',
        { threadId: 'bench-thread', turnId: 'bench-turn', itemId: 'bench-item', delta: `token ${i} ` },
        { threadId: 'bench-thread', turnId: 'bench-turn', itemId: 'bench-item' },
      );
    }
    runtime.events.flush();
    const started = performance.now();
    let marker = Number.POSITIVE_INFINITY;
    let received = 0;
    const timeToLiveMs = await new Promise<number>((resolve, reject) => {
      const request = http.get(`${server.apiUrl}/events?since_seq=0`, { headers: { authorization: `Bearer ${server.token}` } });
      request.on('error', reject);
      request.on('response', (response) => {
        // Published once the stream is open: it is held until the replay has caught up.
        marker = runtime.events.publish('thread/archived', { threadId: 'bench-marker' });
        let tail = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          const text = tail + chunk;
          const lines = text.split('\n');
          tail = lines.pop() ?? '';
          for (const line of lines) {
            if (!line.startsWith('id: ')) continue;
            received++;
            if (Number(line.slice(4)) >= marker) {
              request.destroy();
              resolve(performance.now() - started);
            }
          }
        });
      });
    });
    return { loggedEvents: options.events, eventsReceived: received, timeToLiveMs: Math.round(timeToLiveMs) };
  } finally {
    await server.close();
    host.close();
    await runtime.shutdown();
  }
}
