import { PrivateFileSecretStore } from './private-file-secret-store.js';
import type { EnvKeyLookup, SecretStore } from './secret-store.js';

/** Where a host keeps keys: the OS keychain when it works (`auto`), or always the private file (`file`). */
export type KeyStorageChoice = 'auto' | 'file';

/**
 * `WHEELHOUSE_KEY_STORAGE=file` keeps keys in the home's private file even
 * where a keychain exists (a keychain that prompts on every read, tests that
 * must never touch the person's keychain); unset or `auto` lets Wheelhouse
 * choose. Anything else is an error, not a silent default.
 */
export function keyStorageChoice(env: NodeJS.ProcessEnv = process.env): KeyStorageChoice {
  const value = env['WHEELHOUSE_KEY_STORAGE'];
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if (value === 'file') return 'file';
  throw new Error(`WHEELHOUSE_KEY_STORAGE must be "auto" or "file", not "${value}"`);
}

/**
 * The store for a runtime without Electron (CLI, headless server): the OS
 * keychain when a probe proves it works, else a file in the home only the
 * user can read. The keyring module and its probe (a write, read and delete
 * in the keychain) wait until a key is first needed, so starting the server
 * never pays for them.
 */
export function createDefaultSecretStore(
  /** The private key file (the home's `api-keys.json`). */
  file: string,
  choice: KeyStorageChoice = keyStorageChoice(),
): (envKeyFor: EnvKeyLookup) => SecretStore {
  return (envKeyFor) => {
    if (choice === 'file') return new PrivateFileSecretStore(file);
    return new DeferredSecretStore(async () => {
      const { KeyringSecretStore, probeKeychain } = await import('./keyring-secret-store.js');
      const probe = probeKeychain();
      return probe.usable ? new KeyringSecretStore(envKeyFor, probe) : new PrivateFileSecretStore(file);
    });
  };
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

  location(): string | null {
    return this.settled().location();
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
