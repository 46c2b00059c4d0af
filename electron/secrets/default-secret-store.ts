import { EnvironmentOnlySecretStore } from './environment-secret-store.js';
import { KeyringSecretStore, probeKeychain } from './keyring-secret-store.js';
import type { EnvKeyLookup, SecretStore } from './secret-store.js';

/**
 * The store for a runtime without Electron (CLI, headless server): the OS
 * keychain when a probe proves it works, else environment variables only.
 */
export function createDefaultSecretStore(envKeyFor: EnvKeyLookup): SecretStore {
  const probe = probeKeychain();
  return probe.usable
    ? new KeyringSecretStore(envKeyFor, probe)
    : new EnvironmentOnlySecretStore(envKeyFor, probe.detail);
}
