import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { AsyncEntry, Entry } from '@napi-rs/keyring';
import { SecretStoreError, unavailableError, type EnvKeyLookup, type SecretStore } from './secret-store.js';

/** The keychain service name every Wheelhouse key is filed under. */
export const KEYCHAIN_SERVICE = 'wheelhouse';

/** Whether the OS keychain accepted a write, read and delete, and if not, why. */
export interface KeychainProbe {
  readonly usable: boolean;
  readonly detail: string;
}

/**
 * Proves the keychain works by storing, reading back and deleting a throwaway
 * entry. On Linux the keyring library silently falls back from the Secret
 * Service (gnome-keyring, KWallet) to the kernel keyring, which forgets
 * everything at reboot; that is not a place for API keys, so Linux needs a
 * D-Bus session bus, and a probe entry that shows up in /proc/keys (the
 * kernel keyring) makes the keychain unusable.
 */
export function probeKeychain(service: string = KEYCHAIN_SERVICE, env: NodeJS.ProcessEnv = process.env): KeychainProbe {
  if (process.platform === 'linux' && !hasSessionBus(env)) {
    return {
      usable: false,
      detail: 'No D-Bus session is running, so no system keyring (Secret Service) can be reached.',
    };
  }
  const account = `wheelhouse-probe-${randomUUID()}`;
  const token = randomUUID();
  const entry = new Entry(service, account);
  try {
    // A read first: the kernel-keyring fallback fails the first write of a process otherwise.
    entry.getPassword();
    entry.setPassword(token);
    if (entry.getPassword() !== token) {
      return { usable: false, detail: `${keychainName()} did not return the value stored in it.` };
    }
    if (inKernelKeyring(account, service)) {
      return {
        usable: false,
        detail: 'Only the kernel keyring is available, and it forgets keys at reboot (no Secret Service is running).',
      };
    }
    return { usable: true, detail: `${keychainName()} is available.` };
  } catch (error) {
    return { usable: false, detail: `${keychainName()} is not usable here (${firstLine(error)}).` };
  } finally {
    try {
      entry.deleteCredential();
    } catch {
      // Nothing was stored, or the keychain refuses; either way there is nothing to clean up.
    }
  }
}

function hasSessionBus(env: NodeJS.ProcessEnv): boolean {
  if (env['DBUS_SESSION_BUS_ADDRESS']) return true;
  const uid = process.getuid?.();
  return uid !== undefined && fs.existsSync(`/run/user/${uid}/bus`);
}

/** Whether an entry landed in the Linux kernel keyring (listed in /proc/keys by its description). */
function inKernelKeyring(account: string, service: string): boolean {
  if (process.platform !== 'linux') return false;
  try {
    return fs.readFileSync('/proc/keys', 'utf8').includes(`${account}@${service}`);
  } catch {
    return false;
  }
}

/** API keys in the operating system's keychain via @napi-rs/keyring, one entry per provider. */
export class KeyringSecretStore implements SecretStore {
  readonly kind = 'os-keychain' as const;
  readonly available: boolean;
  private readonly detail: string;

  constructor(
    private readonly envKeyFor: EnvKeyLookup,
    probe: KeychainProbe,
    private readonly service: string = KEYCHAIN_SERVICE,
  ) {
    this.available = probe.usable;
    this.detail = probe.detail;
  }

  /** Probes the keychain now and returns a store that knows whether it can be used. */
  static detect(envKeyFor: EnvKeyLookup, service: string = KEYCHAIN_SERVICE): KeyringSecretStore {
    return new KeyringSecretStore(envKeyFor, probeKeychain(service), service);
  }

  async get(providerId: string): Promise<string | null> {
    if (!this.available) return null;
    try {
      const key = await this.entry(providerId).getPassword();
      return key ? key : null;
    } catch (error) {
      throw this.failure(providerId, 'read', error);
    }
  }

  async set(providerId: string, key: string): Promise<void> {
    if (!this.available) throw unavailableError(providerId, this.envKeyFor, this.detail);
    try {
      await this.entry(providerId).setPassword(key);
    } catch (error) {
      throw this.failure(providerId, 'save', error);
    }
  }

  async delete(providerId: string): Promise<boolean> {
    if (!this.available) return false;
    if ((await this.get(providerId)) === null) return false;
    try {
      return await this.entry(providerId).deleteCredential();
    } catch (error) {
      throw this.failure(providerId, 'remove', error);
    }
  }

  location(): null {
    return null;
  }

  describe(): string {
    return this.available
      ? `API keys are stored in ${keychainName()} (service "${this.service}").`
      : `${this.detail} API keys are read from environment variables only (each provider's env_key).`;
  }

  private entry(providerId: string): AsyncEntry {
    return new AsyncEntry(this.service, providerId);
  }

  private failure(providerId: string, action: string, error: unknown): SecretStoreError {
    return new SecretStoreError(
      'failed',
      providerId,
      `Could not ${action} the API key of "${providerId}" in ${keychainName()}: ${firstLine(error)}`,
      this.envKeyFor(providerId),
    );
  }
}

function keychainName(): string {
  switch (process.platform) {
    case 'darwin':
      return 'the macOS Keychain';
    case 'win32':
      return 'the Windows Credential Manager';
    default:
      return 'the system keyring (Secret Service)';
  }
}

/** The keyring's errors carry a Rust backtrace; the first line is the useful part. */
function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]?.trim() || 'unknown error';
}
