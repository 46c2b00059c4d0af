import fs from 'node:fs';
import { writeFileAtomic } from '../files/atomic-write.js';
import { SecretStoreError, unavailableError, type EnvKeyLookup, type SecretStore } from './secret-store.js';

/** Turns text into an opaque blob and back (Electron: safeStorage.encryptString / decryptString). */
export interface SecretCipher {
  encrypt(plain: string): Uint8Array;
  decrypt(blob: Uint8Array): string;
}

export interface EncryptedFileSecretStoreOptions {
  /** Usually `<home>/secrets.bin`. */
  readonly file: string;
  readonly cipher: SecretCipher;
  /**
   * Whether the cipher really protects data. Electron's safeStorage on a Linux
   * desktop without a keyring falls back to a fixed password ("basic_text"):
   * the main process passes false then, and this store refuses to save.
   */
  readonly available: boolean;
  readonly envKeyFor: EnvKeyLookup;
  /** Overrides the Settings sentence (e.g. to name the platform's protection). */
  readonly description?: string;
}

/**
 * API keys as one encrypted blob in a file, the whole provider->key map
 * encrypted together and replaced atomically. Electron-free: the main process
 * hands in safeStorage as the cipher.
 */
export class EncryptedFileSecretStore implements SecretStore {
  readonly kind = 'electron-safe-storage' as const;
  readonly available: boolean;

  constructor(private readonly options: EncryptedFileSecretStoreOptions) {
    this.available = options.available;
  }

  async get(providerId: string): Promise<string | null> {
    if (!this.available) return null;
    return this.readAll().get(providerId) ?? null;
  }

  async set(providerId: string, key: string): Promise<void> {
    if (!this.available) {
      throw unavailableError(providerId, this.options.envKeyFor, 'This system cannot encrypt API keys.');
    }
    // An unreadable file cannot be repaired, only replaced: saving a key starts it afresh.
    const all = this.readAllOrEmpty();
    all.set(providerId, key);
    this.writeAll(all, providerId);
  }

  async delete(providerId: string): Promise<boolean> {
    if (!this.available) return false;
    const all = this.readAll();
    if (!all.delete(providerId)) return false;
    this.writeAll(all, providerId);
    return true;
  }

  location(): string | null {
    return this.available ? this.options.file : null;
  }

  describe(): string {
    if (this.options.description) return this.options.description;
    return this.available
      ? `API keys are encrypted with the operating system's protection and kept in ${this.options.file}.`
      : "This system cannot encrypt API keys. They are read from environment variables only (each provider's env_key).";
  }

  /**
   * A file that cannot be decrypted (another machine, a reset keychain) is
   * replaced; a file that cannot be read (permissions, a denied prompt) is
   * an error, so saving one key never wipes the others.
   */
  private readAllOrEmpty(): Map<string, string> {
    const all = this.readTable();
    return typeof all === 'string' ? new Map() : all;
  }

  private readAll(): Map<string, string> {
    const all = this.readTable();
    if (typeof all === 'string') throw this.failure(all);
    return all;
  }

  /** The key table, or why the file cannot be decrypted (I/O errors throw). */
  private readTable(): Map<string, string> | string {
    let blob: Buffer;
    try {
      blob = fs.readFileSync(this.options.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw this.failure(`could not read ${this.options.file}: ${(error as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.options.cipher.decrypt(blob));
    } catch {
      return `could not decrypt ${this.options.file}; re-enter the API keys to replace it`;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return `${this.options.file} does not hold a key table; re-enter the API keys to replace it`;
    }
    const all = new Map<string, string>();
    for (const [id, key] of Object.entries(parsed)) {
      if (typeof key === 'string') all.set(id, key);
    }
    return all;
  }

  private writeAll(all: Map<string, string>, providerId: string): void {
    try {
      const blob = this.options.cipher.encrypt(JSON.stringify(Object.fromEntries(all)));
      writeFileAtomic(this.options.file, blob, 0o600);
    } catch (error) {
      throw new SecretStoreError(
        'failed',
        providerId,
        `Could not save API keys to ${this.options.file}: ${(error as Error).message}`,
        this.options.envKeyFor(providerId),
      );
    }
  }

  private failure(message: string): SecretStoreError {
    return new SecretStoreError('failed', null, `Stored API keys are unreadable: ${message}`);
  }
}

