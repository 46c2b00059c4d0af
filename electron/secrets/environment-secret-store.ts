import { unavailableError, type EnvKeyLookup, type SecretStore } from './secret-store.js';

/**
 * The store for machines with no secure storage: it holds nothing and refuses
 * to save, telling the user which environment variable to set. It never falls
 * back to writing a key in plain text.
 */
export class EnvironmentOnlySecretStore implements SecretStore {
  readonly kind = 'environment-only' as const;
  readonly available = false;

  constructor(
    private readonly envKeyFor: EnvKeyLookup,
    /** Why there is no secure storage (e.g. the keychain probe's failure). */
    private readonly reason = 'This system has no secure storage for API keys.',
  ) {}

  async get(_providerId: string): Promise<string | null> {
    return null;
  }

  async set(providerId: string, _key: string): Promise<void> {
    throw unavailableError(providerId, this.envKeyFor, this.reason);
  }

  async delete(_providerId: string): Promise<boolean> {
    return false;
  }

  location(): null {
    return null;
  }

  describe(): string {
    return `${this.reason} API keys are read from environment variables only (each provider's env_key).`;
  }
}
