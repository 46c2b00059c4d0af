/**
 * Runtime overhead of one turn on an in-process model that answers at once:
 * (turn/start received -> model request issued) + (last model event ->
 * turn/completed published). Network and model time are excluded on purpose.
 */
import { performance } from 'node:perf_hooks';
import type { ModelClient, ModelRequest, ModelStreamEvent } from '../electron/model/types.js';
import type { RequestContext } from '../electron/runtime/context.js';
import type { Runtime } from '../electron/runtime/runtime.js';
import { createTestRuntime } from '../test-support/test-runtime.js';
import { summarize, type LatencySummary } from './stats.js';

const ctx: RequestContext = { session: { connectionId: 'bench', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

class TimedModel implements ModelClient {
  requestIssuedAt = 0;
  lastEventAt = 0;
  stream(_request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    this.requestIssuedAt = performance.now();
    const self = this;
    return (async function* () {
      for (let i = 0; i < 20; i++) yield { type: 'textDelta', delta: `token${i} ` } as const;
      yield {
        type: 'usage',
        usage: { totalTokens: 30, inputTokens: 10, cachedInputTokens: 0, outputTokens: 20, reasoningOutputTokens: 0 },
      } as const;
      self.lastEventAt = performance.now();
      yield { type: 'done', finishReason: 'stop' } as const;
    })();
  }
  async listModels() {
    return [];
  }
}

export async function turnOverhead(options: { home: string; turns: number }): Promise<LatencySummary> {
  const model = new TimedModel();
  const runtime = createTestRuntime({
    home: options.home,
    bindModel: async () => ({ client: model, model: 'bench', contextWindow: null }),
  });
  try {
    const { thread } = await runtime.dispatcher.call('thread/start', {}, ctx);
    const samples: number[] = [];
    for (let i = 0; i < options.turns; i++) {
      const completed = new Promise<number>((resolve) => {
        const off = runtime.events.subscribe((n) => {
          if (n.method === 'turn/completed') {
            off();
            resolve(performance.now());
          }
        });
      });
      const receivedAt = performance.now();
      await runtime.dispatcher.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: `message ${i}` }] }, ctx);
      const completedAt = await completed;
      samples.push(model.requestIssuedAt - receivedAt + (completedAt - model.lastEventAt));
      // Keep the thread short so each turn measures the same work.
      if (i % 20 === 19) await runtime.dispatcher.call('thread/rollback', { threadId: thread.id, numTurns: 20 }, ctx);
    }
    return summarize(samples.slice(Math.min(20, Math.floor(samples.length / 5))));
  } finally {
    await runtime.shutdown();
  }
}
