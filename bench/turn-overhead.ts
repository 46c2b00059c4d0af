/**
 * Runtime overhead of whole turns on an in-process model: from turn/start
 * received to turn/completed published, less the time the mock model itself
 * spends producing its events, which the mock measures from its side (it
 * does not pace, so there is no waiting to subtract). What remains is the
 * runtime's own work: starting the turn, handling every delta (event log,
 * publishing, the reply item) and finishing the turn. No network: the model
 * is in-process, so HTTP and SSE parsing are not included.
 */
import { performance } from 'node:perf_hooks';
import type { ModelClient, ModelRequest, ModelStreamEvent } from '../electron/model/types.js';
import type { RequestContext } from '../electron/runtime/context.js';
import { createTestRuntime } from '../test-support/test-runtime.js';
import { summarize, type LatencySummary } from './stats.js';

const ctx: RequestContext = { session: { connectionId: 'bench', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

/** Streams `deltas` text deltas as fast as they are pulled, adding up the time spent inside the mock. */
class SelfTimingModel implements ModelClient {
  ownMs = 0;
  constructor(private readonly deltas: number) {}

  stream(_request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const self = this;
    const deltas = this.deltas;
    return (async function* (): AsyncGenerator<ModelStreamEvent> {
      // Between a yield and the next resume the runtime is handling the event; only the rest is the mock's.
      let resumedAt = performance.now();
      const emit = (event: ModelStreamEvent) => {
        self.ownMs += performance.now() - resumedAt;
        return event;
      };
      for (let i = 0; i < deltas; i++) {
        yield emit({ type: 'textDelta', delta: `token${i} ` });
        resumedAt = performance.now();
      }
      yield emit({
        type: 'usage',
        usage: { totalTokens: 30, inputTokens: 10, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: deltas, reasoningOutputTokens: 0 },
      });
      resumedAt = performance.now();
      yield emit({ type: 'done', finishReason: 'stop' });
    })();
  }

  async listModels() {
    return [];
  }
}

/** Whole-turn overhead for turns of `deltas` deltas each. */
async function measure(home: string, turns: number, deltas: number): Promise<LatencySummary> {
  const model = new SelfTimingModel(deltas);
  const runtime = createTestRuntime({
    home,
    bindModel: async () => ({ client: model, model: 'bench', contextWindow: null }),
  });
  try {
    const { thread } = await runtime.dispatcher.call('thread/start', {}, ctx);
    const samples: number[] = [];
    for (let i = 0; i < turns; i++) {
      const completed = new Promise<number>((resolve) => {
        const off = runtime.events.subscribe((n) => {
          if (n.method === 'turn/completed') {
            off();
            resolve(performance.now());
          }
        });
      });
      model.ownMs = 0;
      const receivedAt = performance.now();
      await runtime.dispatcher.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: `message ${i}` }] }, ctx);
      const completedAt = await completed;
      samples.push(completedAt - receivedAt - model.ownMs);
      // Keep the thread short so each turn measures the same work.
      if (i % 20 === 19) await runtime.dispatcher.call('thread/rollback', { threadId: thread.id, numTurns: 20 }, ctx);
    }
    return summarize(samples.slice(Math.min(20, Math.floor(samples.length / 5))));
  } finally {
    await runtime.shutdown();
  }
}

/**
 * Whole-turn overhead for short (20 deltas) and long (200 deltas) replies,
 * and from the two the runtime's cost per delta.
 */
export async function turnOverhead(options: { home: (label: string) => string; turns: number }) {
  const short = await measure(options.home('short'), options.turns, 20);
  const long = await measure(options.home('long'), Math.ceil(options.turns / 3), 200);
  return {
    turn20Deltas: short,
    turn200Deltas: long,
    perDeltaMedianMs: Math.round(((long.medianMs - short.medianMs) / 180) * 1000) / 1000,
    medianMs: short.medianMs,
  };
}
