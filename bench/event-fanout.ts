/**
 * The runtime's own fan-out cost: a turn streams paced deltas from an
 * in-process model (no HTTP parsing), the runtime logs and publishes each as
 * a notification, and 4 WebSocket clients in another process receive all of
 * them. CPU is this process's (runtime + carriers) less what the pacing model
 * alone costs; the clients' CPU is excluded.
 */
import { fork } from 'node:child_process';
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
        const due = start + (i * 1000) / perSecond;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        yield { type: 'textDelta', delta: `tok${i} ` };
      }
      yield { type: 'done', finishReason: 'stop' };
    },
    listModels: async () => [],
  };
}

/** CPU % of one core spent by the paced model alone, to subtract from the total. */
async function pacingBaseline(deltas: number, perSecond: number): Promise<number> {
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const controller = new AbortController();
  for await (const _ of pacedModel(deltas, perSecond).stream({ model: 'x', instructions: '', messages: [], tools: [], signal: controller.signal })) {
    // drain
  }
  const cpu = process.cpuUsage(cpuBefore);
  return (cpu.user + cpu.system) / 1e4 / ((performance.now() - wallBefore) / 1000);
}

export async function eventFanout(options: { home: string; clients: number; deltas: number; perSecond: number }) {
  const baseline = await pacingBaseline(options.deltas, options.perSecond);
  const runtime = createTestRuntime({
    home: options.home,
    bindModel: async () => ({ client: pacedModel(options.deltas, options.perSecond), model: 'bench', contextWindow: null }),
  });
  const host = new RpcHost(runtime);
  const server = await startWebServer(host, {});
  const child = fork(fileURLToPath(new URL('./fanout-clients.mjs', import.meta.url)), [server.wsUrl, String(options.clients)]);
  try {
    await new Promise<void>((resolve) => child.once('message', () => resolve()));
    const { thread } = await runtime.dispatcher.call('thread/start', {}, ctx);
    const result = new Promise<{ counts: number[]; seconds: number }>((resolve) =>
      child.once('message', (m) => resolve(m as { counts: number[]; seconds: number })),
    );
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    await runtime.dispatcher.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'go' }] }, ctx);
    const { counts, seconds } = await result;
    const wall = (performance.now() - wallBefore) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const total = (cpu.user + cpu.system) / 1e4 / wall;
    return {
      clients: options.clients,
      deltasPerClient: counts,
      eventsPerSecondPerClient: Math.round(Math.min(...counts) / seconds),
      totalCpuPercentOfOneCore: round1(total),
      modelPacingCpuPercent: round1(baseline),
      runtimeCpuPercentOfOneCore: round1(total - baseline),
      target: '>= 1000 events/s using < 10% of one core',
    };
  } finally {
    child.kill();
    await server.close();
    host.close();
    await runtime.shutdown();
  }
}
