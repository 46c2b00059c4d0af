// First, for runtimes built in process (the CLI and Electron main set it earlier): see young-generation.ts.
import './young-generation.js';
import { ConfigService } from '../config/config-service.js';
import { homePaths } from '../runtime/home.js';
import type { HomeLock } from '../runtime/home-lock.js';
import type { RuntimeOptions } from './compose-runtime.js';
import { Runtime } from './runtime.js';
import type { EnvKeyLookup, SecretStore } from '../secrets/secret-store.js';
import { StateStore } from '../store/state-store.js';
import { lockHome } from './lock-home.js';

export interface HostRuntimeOptions extends RuntimeOptions {
  /** The Wheelhouse home folder (state database, config). */
  readonly home: string;
  /** Path of a better-sqlite3 binding for this host's ABI (the Electron app passes one). */
  readonly nativeBinding?: string;
  /**
   * Builds the store for provider API keys, given each provider's env_key.
   * Each host chooses: the CLI the OS keychain (createDefaultSecretStore), the
   * app Electron safeStorage, tests a store that never reaches the keychain.
   */
  readonly secretStore: (envKeyFor: EnvKeyLookup) => SecretStore;
}

/**
 * Opens a home and builds the runtime on it: takes the home lock, then opens
 * config.toml, the secret store and both SQLite stores and hands them in.
 * On any failure what was opened is closed again and the lock released.
 */
export function createRuntime(options: HostRuntimeOptions): Runtime {
  return createRuntimeHolding(lockHome(options.home), options);
}

/**
 * Builds the runtime on a home whose lock the caller already holds (see
 * lock-home.ts); the runtime owns the lock from then on. On failure what was
 * opened is closed again and the lock released.
 */
export function createRuntimeHolding(lock: HomeLock, options: HostRuntimeOptions): Runtime {
  const { home, nativeBinding, secretStore, ...runtimeOptions } = options;
  const paths = homePaths(home);
  const opened: StateStore[] = [];
  try {
    const config = new ConfigService(paths.config);
    const secrets = secretStore((id) => config.provider(id)?.envKey ?? null);
    const dbOptions = nativeBinding ? { nativeBinding } : {};
    const durable = StateStore.open(paths.stateDb, dbOptions);
    opened.push(durable);
    const memory = StateStore.inMemory(dbOptions);
    opened.push(memory);
    return Runtime.open({ home, lock, config, secrets, durable, memory }, runtimeOptions);
  } catch (error) {
    for (const store of opened) store.close();
    lock.release();
    throw error;
  }
}
