/**
 * Runtime overhead of queued turns draining on an idle thread, beside direct
 * turns, both against the mock model server over HTTP. Overhead per turn =
 * (what triggered the turn -> model request issued) + (last model event ->
 * turn/completed published). The trigger of a direct turn is turn/start being
 * received; of a queued turn, the previous turn's turn/completed (the queue
 * drains from there). HTTP and model time are excluded, as in turn-overhead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createModelBinder } from '../electron/config/model-binder.js';
import { createModelClient } from '../electron/model/create-model-client.js';
import type { ModelBinder, ModelClient, ModelRequest, ModelStreamEvent } from '../electron/model/types.js';
import type { RequestContext } from '../electron/runtime/context.js';
import type { Runtime } from '../electron/host/runtime.js';
import { createGate, startMockModelServer, type MockScript } from '../test-support/mock-model/index.js';
import { createTestRuntime } from '../test-support/test-runtime.js';
import { summarize, type LatencySummary } from './stats.js';

const ctx: RequestContext = { session: { connectionId: 'bench', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

/** When each model request was issued and when its last event arrived, in turn order. */
interface ModelTimes {
  readonly issued: number[];
  readonly lastEvent: number[];
}

function timed(client: ModelClient, times: ModelTimes): ModelClient {
  return {
    listModels: (signal) => client.listModels(signal),
    stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
      times.issued.push(performance.now());
      const index = times.issued.length - 1;
      return (async function* () {
        for await (const event of client.stream(request)) {
          times.lastEvent[index] = performance.now();
          yield event;
        }
      })();
    },
  };
}

const reply = (i: number): MockScript => [
  ...Array.from({ length: 20 }, (_, t) => ({ type: 'text' as const, text: `token${t}-${i} ` })),
  { type: 'finish', usage: { inputTokens: 10, outputTokens: 20 } },
];

export interface QueueDrainReport {
  readonly turns: number;
  readonly queued: LatencySummary;
  readonly direct: LatencySummary;
}

export async function queueDrain(options: { home: string; turns: number }): Promise<QueueDrainReport> {
  const mock = await startMockModelServer();
  fs.writeFileSync(
    path.join(options.home, 'config.toml'),
    ['model = "deepseek-chat"', 'model_provider = "mock"', '[model_providers.mock]', 'name = "Mock"',
      `base_url = "${mock.url}"`, 'wire_api = "chat"', 'request_max_retries = 0', ''].join('\n'),
  );
  const times: ModelTimes = { issued: [], lastEvent: [] };
  const completed: number[] = [];
  let runtime: Runtime | undefined;
  // The real config.toml binder, built once the runtime (its config and keys) exists.
  let binder: ModelBinder | undefined;
  runtime = createTestRuntime({
    home: options.home,
    bindModel: async (thread) => {
      binder ??= createModelBinder({ configService: runtime!.config, providers: runtime!.services.providers, createClient: createModelClient });
      const binding = await binder(thread);
      return { ...binding, client: timed(binding.client, times) };
    },
  });
  const off = runtime.events.subscribe((n) => {
    if (n.method === 'turn/completed') completed.push(performance.now());
  });
  const turnCompleted = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => (completed.length >= count ? resolve() : setImmediate(check));
      check();
    });
  try {
    // Warm-up, unmeasured: the first turns of a process pay for JIT and caches.
    const warm = (await runtime.dispatcher.call('thread/start', {}, ctx)).thread;
    for (let i = 0; i < 5; i++) {
      mock.enqueue(reply(i));
      await runtime.dispatcher.call('turn/start', { threadId: warm.id, input: [{ type: 'text', text: `warm ${i}` }] }, ctx);
      await turnCompleted(completed.length + 1);
    }

    // Direct turns: each one started by turn/start.
    const direct = (await runtime.dispatcher.call('thread/start', {}, ctx)).thread;
    const directSamples: number[] = [];
    for (let i = 0; i < options.turns; i++) {
      mock.enqueue(reply(i));
      const receivedAt = performance.now();
      await runtime.dispatcher.call('turn/start', { threadId: direct.id, input: [{ type: 'text', text: `direct ${i}` }] }, ctx);
      await turnCompleted(completed.length + 1);
      const k = times.issued.length - 1;
      directSamples.push(times.issued[k]! - receivedAt + (completed.at(-1)! - times.lastEvent[k]!));
    }

    // Queued turns: queued behind one held turn, then drained one after another.
    const queued = (await runtime.dispatcher.call('thread/start', {}, ctx)).thread;
    const gate = createGate();
    mock.enqueue([{ type: 'waitFor', release: gate.promise }, { type: 'finish' }]);
    for (let i = 0; i < options.turns; i++) mock.enqueue(reply(i));
    const firstModelCall = times.issued.length;
    const firstCompletion = completed.length;
    await runtime.dispatcher.call('turn/start', { threadId: queued.id, input: [{ type: 'text', text: 'hold' }] }, ctx);
    for (let i = 0; i < options.turns; i++) {
      const text = `queued ${i}`;
      await runtime.dispatcher.call('thread/queue/add', { threadId: queued.id, turnStartParams: { threadId: queued.id, input: [{ type: 'text', text }] } }, ctx);
    }
    gate.release();
    await turnCompleted(firstCompletion + options.turns + 1);
    const queuedSamples: number[] = [];
    for (let i = 1; i <= options.turns; i++) {
      const k = firstModelCall + i;
      const c = firstCompletion + i;
      queuedSamples.push(times.issued[k]! - completed[c - 1]! + (completed[c]! - times.lastEvent[k]!));
    }
    return { turns: options.turns, queued: summarize(queuedSamples), direct: summarize(directSamples) };
  } finally {
    off();
    await runtime.shutdown();
    await mock.close();
  }
}
