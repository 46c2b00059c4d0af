import type { SecretStorageKind } from '../../shared/protocol/index.js';

/**
 * Where provider API keys live. Keys are never written to config.toml, the
 * SQLite state, logs, events or notifications; only a SecretStore holds them.
 * Methods are async so a store may wait on an OS keychain prompt without
 * blocking the process.
 */
export interface SecretStore {
  readonly kind: SecretStorageKind;
  /** False when this store cannot keep keys here (no keychain, no encryption). */
  readonly available: boolean;
  /** The stored key for a provider, or null. */
  get(providerId: string): Promise<string | null>;
  /** Stores a key; throws SecretStoreError when the store cannot. */
  set(providerId: string, key: string): Promise<void>;
  /** Removes a key; returns whether one was stored. */
  delete(providerId: string): Promise<boolean>;
  /** One sentence for Settings: where keys are kept, or why they cannot be. */
  describe(): string;
  /** The file keys are kept in, when they are kept in a file; null otherwise. */
  location(): string | null;
  /**
   * Resolves once `kind`, `available` and `describe()` may be read, for a
   * store that finds out where keys live only when first asked.
   */
  ready?(): Promise<void>;
}

/** Why a secret operation failed. */
export type SecretStoreErrorReason =
  /** This machine has no secure storage; the key must come from an environment variable. */
  | 'unavailable'
  /** The storage exists but refused or failed (locked keychain, unreadable file). */
  | 'failed';

/** A secret-storage failure whose message a person can act on; never contains a key. */
export class SecretStoreError extends Error {
  constructor(
    readonly reason: SecretStoreErrorReason,
    readonly providerId: string | null,
    message: string,
    /** The environment variable the user can set instead, when known. */
    readonly envKey: string | null = null,
  ) {
    super(message);
    this.name = 'SecretStoreError';
  }
}

/** Looks up the environment variable (Codex `env_key`) that may hold a provider's key. */
export type EnvKeyLookup = (providerId: string) => string | null;

/** The error every store without secure storage throws from set(). */
export function unavailableError(providerId: string, envKeyFor: EnvKeyLookup, why: string): SecretStoreError {
  const envKey = envKeyFor(providerId);
  const instead = envKey
    ? `Set the environment variable ${envKey} to the key before starting Wheelhouse.`
    : `Configure an env_key for provider "${providerId}" and set that environment variable before starting Wheelhouse.`;
  return new SecretStoreError('unavailable', providerId, `${why} The key was not saved. ${instead}`, envKey);
}
