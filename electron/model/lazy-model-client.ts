import type { ModelClient, ModelInfo, ModelRequest, ModelStreamEvent, ResolvedProvider } from './types.js';

type CreateModelClient = (provider: ResolvedProvider) => ModelClient;

let loading: Promise<CreateModelClient> | undefined;

/**
 * The model clients and the OpenAI SDK under them, loaded on first use: they
 * cost tens of milliseconds to load, and `initialize`, thread lists and
 * history never need them. The first turn, model list or model test does.
 */
function loadCreateModelClient(): Promise<CreateModelClient> {
  loading ??= import('./create-model-client.js').then((module) => module.createModelClient);
  return loading;
}

/**
 * Same as createModelClient, but the client's code is loaded only when one of
 * its methods is first called. Load failures surface from that call.
 */
export function createModelClient(provider: ResolvedProvider): ModelClient {
  let client: Promise<ModelClient> | undefined;
  const real = () => (client ??= loadCreateModelClient().then((create) => create(provider)));
  return {
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
      yield* (await real()).stream(request);
    },
    async listModels(signal: AbortSignal): Promise<ModelInfo[]> {
      return (await real()).listModels(signal);
    },
  };
}
