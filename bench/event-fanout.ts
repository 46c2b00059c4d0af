/**
 * The runtime's fan-out capacity: a turn streams deltas from an in-process
 * model (no HTTP parsing) at an offered rate, the runtime logs and publishes
 * each as a notification, and N WebSocket clients in another process receive
 * all of them. The offered rate doubles step by step until deltas lag (the
 * clients receive them slower than offered, or the stream falls behind its
 * schedule because the runtime pulls too slowly); the highest rate kept up
 * with is the maximum sustained rate. CPU is this whole process (runtime,
 * carriers and the model stream), nothing subtracted; the model stream's own
 * share is reported beside it. The clients' CPU (another process) is excluded.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ModelClient, ModelStreamEvent } from '../electron/model/types.js';
import type { RequestContext } from '../electron/runtime/context.js';
import { RpcHost } from '../electron/server/rpc-host.js';
import { startWebServer } from '../electron/server/web-server.js';
import { createTestRuntime } from '../test-support/test-runtime.js';

const round1 = (n: number) => Math.round(n * 10) / 10;

const ctx: RequestContext = { session: { connectionId: 'bench', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

/** A model stream paced at `perSecond`, which times its own work and how far behind schedule it was pulled. */
class PacedModel implements ModelClient {
  ownMs = 0;
  /** Worst lateness of a pull; a hiccup (GC, a write) that the stream catches up on shows here. */
  maxBehindMs = 0;
  /** Lateness of the last pull: grows without bound once the runtime cannot keep up. */
  finalBehindMs = 0;
  constructor(
    private readonly total: number,
    private readonly perSecond: number,
  ) {}

  stream(): AsyncIterable<ModelStreamEvent> {
    const self = this;
    return (async function* (): AsyncGenerator<ModelStreamEvent> {
      const start = performance.now();
      for (let i = 0; i < self.total; i++) {
        const due = start + (i * 1000) / self.perSecond;
        let now = performance.now();
        if (due - now > 1) {
          await new Promise((resolve) => setTimeout(resolve, due - now));
          now = performance.now();
        }
        self.maxBehindMs = Math.max(self.maxBehindMs, now - due);
        self.finalBehindMs = Math.max(0, now - due);
        const event: ModelStreamEvent = { type: 'textDelta', delta: `tok${i} ` };
        self.ownMs += performance.now() - now;
        yield event;
      }
      yield { type: 'done', finishReason: 'stop' };
    })();
  }

  async listModels() {
    return [];
  }
}

export interface FanoutStep {
  readonly offeredPerSecond: number;
  /** The slowest client's receive rate over the step. */
  readonly deliveredPerSecondPerClient: number;
  /** How late the runtime pulled the model stream's last delta, and at worst. */
  readonly streamBehindAtEndMs: number;
  readonly streamBehindAtWorstMs: number;
  readonly totalCpuPercentOfOneCore: number;
  /** Part of that CPU spent producing the model stream itself. */
  readonly modelStreamPercentOfCpu: number;
  readonly sustained: boolean;
}

export async function eventFanout(options: { home: string; clients: number; stepSeconds: number; rates: readonly number[] }) {
  let model = new PacedModel(0, 1);
  const runtime = createTestRuntime({
    home: options.home,
    bindModel: async () => ({ client: model, model: 'bench', contextWindow: null }),
  });
  const host = new RpcHost(runtime);
  const server = await startWebServer(host, {});
  const child = fork(fileURLToPath(new URL('./fanout-clients.mjs', import.meta.url)), [server.wsUrl, String(options.clients)]);
  const steps: FanoutStep[] = [];
  try {
    await new Promise<void>((resolve) => child.once('message', () => resolve()));
    const { thread } = await runtime.dispatcher.call('thread/start', {}, ctx);
    for (const rate of options.rates) {
      const deltas = Math.max(200, Math.round(rate * options.stepSeconds));
      model = new PacedModel(deltas, rate);
      const result = new Promise<{ counts: number[]; seconds: number }>((resolve) =>
        child.once('message', (m) => resolve(m as { counts: number[]; seconds: number })),
      );
      const cpuBefore = process.cpuUsage();
      const wallBefore = performance.now();
      await runtime.dispatcher.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'go' }] }, ctx);
      const { counts, seconds } = await result;
      const wallMs = performance.now() - wallBefore;
      const cpu = process.cpuUsage(cpuBefore);
      const cpuMs = (cpu.user + cpu.system) / 1000;
      const delivered = Math.min(...counts) / Math.max(seconds, 1e-3);
      const scheduledMs = (deltas * 1000) / rate;
      const sustained =
        Math.min(...counts) === deltas && delivered >= 0.95 * rate && model.finalBehindMs <= Math.max(50, scheduledMs * 0.05);
      steps.push({
        offeredPerSecond: rate,
        deliveredPerSecondPerClient: Math.round(delivered),
        streamBehindAtEndMs: round1(model.finalBehindMs),
        streamBehindAtWorstMs: round1(model.maxBehindMs),
        totalCpuPercentOfOneCore: round1((cpuMs / wallMs) * 100),
        modelStreamPercentOfCpu: round1((model.ownMs / cpuMs) * 100),
        sustained,
      });
      if (!sustained) break;
    }
  } finally {
    child.kill();
    await server.close();
    host.close();
    await runtime.shutdown();
  }
  const kept = steps.filter((s) => s.sustained);
  return {
    clients: options.clients,
    /** The highest offered rate every client received in full and on time (0: not even the first). */
    maxSustainedEventsPerSecond: kept.at(-1)?.offeredPerSecond ?? 0,
    steps,
  };
}
