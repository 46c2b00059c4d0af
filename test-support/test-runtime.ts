import type { ClientMethod, ParamsOf, ResultOf } from '../shared/protocol/index.js';
import { createRuntime, type HostRuntimeOptions } from '../electron/host/create-runtime.js';
import type { RequestContext } from '../electron/runtime/context.js';
import type { Runtime } from '../electron/host/runtime.js';
import { EnvironmentOnlySecretStore } from '../electron/secrets/environment-secret-store.js';

export type TestRuntimeOptions = Omit<HostRuntimeOptions, 'secretStore'> & Partial<Pick<HostRuntimeOptions, 'secretStore'>>;

/**
 * A runtime for tests, e2e and benchmarks: the real host factory on a real
 * home, with a secret store that never reaches the OS keychain unless the
 * caller hands in another (keys then come from environment variables only).
 */
export function createTestRuntime(options: TestRuntimeOptions): Runtime {
  return createRuntime({
    secretStore: (envKeyFor) => new EnvironmentOnlySecretStore(envKeyFor, 'This test runtime keeps no API keys.'),
    ...options,
  });
}

/**
 * Calls the runtime as an in-process client; settles once the notifications
 * the call published have reached the runtime's listeners too (they are
 * announced after their log write, as a carrier's client reads them after
 * the response).
 */
export function settledCaller(runtime: Runtime, ctx: RequestContext) {
  return async <M extends ClientMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> => {
    try {
      return await runtime.dispatcher.call(method, params, ctx);
    } finally {
      await runtime.events.announced();
    }
  };
}
