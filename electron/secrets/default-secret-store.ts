import { EnvironmentOnlySecretStore } from './environment-secret-store.js';
import type { EnvKeyLookup, SecretStore } from './secret-store.js';

/**
 * The store for a runtime without Electron (CLI, headless server): the OS
 * keychain when a probe proves it works, else environment variables only.
 * The keyring module and its probe (a write, read and delete in the keychain)
 * wait until a key is first needed, so starting the server never pays for them.
 */
export function createDefaultSecretStore(envKeyFor: EnvKeyLookup): SecretStore {
  return new DeferredSecretStore(async () => {
    const { KeyringSecretStore, probeKeychain } = await import('./keyring-secret-store.js');
    const probe = probeKeychain();
    return probe.usable
      ? new KeyringSecretStore(envKeyFor, probe)
      : new EnvironmentOnlySecretStore(envKeyFor, probe.detail);
  });
}

/** A secret store chosen on first use; `ready()` settles which one. */
class DeferredSecretStore implements SecretStore {
  private store: SecretStore | undefined;
  private loading: Promise<SecretStore> | undefined;

  constructor(private readonly load: () => Promise<SecretStore>) {}

  get kind(): SecretStore['kind'] {
    return this.settled().kind;
  }

  get available(): boolean {
    return this.settled().available;
  }

  describe(): string {
    return this.settled().describe();
  }

  async ready(): Promise<void> {
    await this.resolve();
  }

  async get(providerId: string): Promise<string | null> {
    return (await this.resolve()).get(providerId);
  }

  async set(providerId: string, key: string): Promise<void> {
    return (await this.resolve()).set(providerId, key);
  }

  async delete(providerId: string): Promise<boolean> {
    return (await this.resolve()).delete(providerId);
  }

  private resolve(): Promise<SecretStore> {
    this.loading ??= this.load().then((store) => (this.store = store));
    return this.loading;
  }

  private settled(): SecretStore {
    if (!this.store) throw new Error('secret store read before ready() settled it');
    return this.store;
  }
}
