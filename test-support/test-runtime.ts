import { createRuntime, type HostRuntimeOptions } from '../electron/host/create-runtime.js';
import type { Runtime } from '../electron/runtime/runtime.js';
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
