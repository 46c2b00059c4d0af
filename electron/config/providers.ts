import type { ApiKeySource } from '../../shared/protocol/index.js';
import type { ResolvedProvider } from '../model/types.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { SecretStoreError } from '../secrets/secret-store.js';
import {
  BUILTIN_PROVIDERS,
  isBuiltInProvider,
  modelInfo,
  PROVIDER_DEFAULTS,
  type ProviderConfig,
} from './builtin-providers.js';
import type { ProviderTable, WheelhouseConfig } from './config-schema.js';

/** A provider id that is neither built in nor configured. */
export class ProviderNotFoundError extends Error {
  constructor(
    readonly providerId: string,
    known: readonly string[],
  ) {
    super(`unknown model provider "${providerId}" (known: ${known.join(', ')})`);
    this.name = 'ProviderNotFoundError';
  }
}

/** Built-in providers with their config.toml overrides applied, then the providers config.toml adds. */
export function mergeProviders(config: WheelhouseConfig): ProviderConfig[] {
  const tables = config.model_providers ?? {};
  const builtIns = BUILTIN_PROVIDERS.map((provider) => {
    const table = tables[provider.id];
    return table ? overlay(provider, table) : provider;
  });
  const added = Object.entries(tables).flatMap(([id, table]) => {
    // The schema requires base_url for added providers; a table without one never gets here.
    const baseUrl = table.base_url;
    return isBuiltInProvider(id) || baseUrl === undefined ? [] : [addedProvider(id, { ...table, base_url: baseUrl })];
  });
  return [...builtIns, ...added];
}

/** A provider config.toml adds (not a built-in one), from its table. */
export function addedProvider(id: string, table: ProviderTable & { base_url: string }): ProviderConfig {
  const fresh: ProviderConfig = {
    ...PROVIDER_DEFAULTS,
    id,
    name: id,
    baseUrl: table.base_url,
    wireApi: 'chat',
    envKey: null,
    requiresApiKey: false,
    httpHeaders: {},
    builtIn: false,
    defaultModel: null,
    knownModels: [],
  };
  return overlay(fresh, table);
}

/** A provider with a config.toml table's settings applied over it. */
export function overlay(base: ProviderConfig, table: ProviderTable): ProviderConfig {
  const defaultModel = table.default_model ?? base.defaultModel;
  const knowsDefault = defaultModel === null || base.knownModels.some((model) => model.id === defaultModel);
  return {
    ...base,
    name: table.name ?? base.name,
    baseUrl: table.base_url ?? base.baseUrl,
    wireApi: table.wire_api ?? base.wireApi,
    envKey: table.env_key ?? base.envKey,
    requiresApiKey: base.requiresApiKey || table.env_key !== undefined,
    requestMaxRetries: table.request_max_retries ?? base.requestMaxRetries,
    streamMaxRetries: table.stream_max_retries ?? base.streamMaxRetries,
    streamIdleTimeoutMs: table.stream_idle_timeout_ms ?? base.streamIdleTimeoutMs,
    httpHeaders: { ...base.httpHeaders, ...table.http_headers },
    defaultModel,
    knownModels: knowsDefault
      ? base.knownModels
      : [modelInfo(defaultModel), ...base.knownModels],
  };
}

/** A provider's key as found, and where; `storeError` says why the secret store could not be read. */
export interface ApiKeyLookup {
  readonly apiKey: string | null;
  readonly source: ApiKeySource;
  readonly storeError: string | null;
}

/**
 * Looks up provider keys: the secret store first, then the environment
 * variable named by the provider's env_key.
 */
export class ProviderResolver {
  constructor(
    private readonly providers: () => readonly ProviderConfig[],
    private readonly secretStore: SecretStore,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** The provider with this id, or ProviderNotFoundError. */
  require(providerId: string): ProviderConfig {
    const all = this.providers();
    const provider = all.find((candidate) => candidate.id === providerId);
    if (!provider) throw new ProviderNotFoundError(providerId, all.map((candidate) => candidate.id));
    return provider;
  }

  async apiKey(provider: ProviderConfig): Promise<ApiKeyLookup> {
    let stored: string | null = null;
    let storeError: string | null = null;
    try {
      stored = await this.secretStore.get(provider.id);
    } catch (error) {
      if (!(error instanceof SecretStoreError)) throw error;
      storeError = error.message;
    }
    if (stored) return { apiKey: stored, source: 'keychain', storeError };
    const fromEnv = provider.envKey ? this.env[provider.envKey]?.trim() : undefined;
    if (fromEnv) return { apiKey: fromEnv, source: 'environment', storeError };
    return { apiKey: null, source: 'none', storeError };
  }

  /** Whether a key entered in Settings can be kept on this machine (else only environment variables work). */
  async canStoreKeys(): Promise<boolean> {
    await this.secretStore.ready?.();
    return this.secretStore.available;
  }

  /**
   * Every key the secret store or the environment holds for a configured
   * provider, so error text can be cleaned of all of them. A store that cannot
   * be read contributes nothing (its keys cannot have been sent either).
   */
  async knownApiKeys(): Promise<string[]> {
    const lookups = await Promise.all(this.providers().map((provider) => this.apiKey(provider).catch(() => null)));
    return lookups.flatMap((lookup) => (lookup?.apiKey ? [lookup.apiKey] : []));
  }

  /** Everything a model client needs to talk to a provider, key included. */
  async resolve(providerId: string): Promise<ResolvedProvider> {
    return this.resolveConfig(this.require(providerId));
  }

  /** Like resolve, for a provider that need not be saved; `apiKey` (typed, unsaved) wins over stored ones. */
  async resolveConfig(provider: ProviderConfig, typedKey?: string): Promise<ResolvedProvider> {
    const apiKey = typedKey ?? (await this.apiKey(provider)).apiKey;
    return {
      id: provider.id,
      name: provider.name,
      baseUrl: provider.baseUrl,
      wireApi: provider.wireApi,
      envKey: provider.envKey,
      apiKey,
      requiresApiKey: provider.requiresApiKey,
      requestMaxRetries: provider.requestMaxRetries,
      streamMaxRetries: provider.streamMaxRetries,
      streamIdleTimeoutMs: provider.streamIdleTimeoutMs,
      httpHeaders: provider.httpHeaders,
    };
  }
}
