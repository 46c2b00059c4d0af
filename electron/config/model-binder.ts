import { reportedContextWindow } from '../model/known-models.js';
import { ModelError, type ModelBinder, type ModelClient, type ResolvedProvider } from '../model/types.js';
import { modelInfo } from './builtin-providers.js';
import type { ConfigService } from './config-service.js';
import { resolveModel } from './model-catalog.js';
import { ProviderNotFoundError, type ProviderResolver } from './providers.js';

export interface ModelBinderDeps {
  readonly configService: ConfigService;
  readonly providers: ProviderResolver;
  /** Builds the client for a resolved provider (the app: createModelClient). */
  readonly createClient: (provider: ResolvedProvider) => ModelClient;
}

/**
 * Binds a thread to a model client from config.toml: its provider resolved
 * with its key, and its model (null or "auto": the configured model, the
 * provider's default, or the first it lists). Every gap becomes a
 * ModelError('configuration') that tells the person what to set.
 */
export function createModelBinder(deps: ModelBinderDeps): ModelBinder {
  return async (thread) => {
    let provider;
    try {
      provider = deps.providers.require(thread.modelProvider);
    } catch (error) {
      if (!(error instanceof ProviderNotFoundError)) throw error;
      throw new ModelError('configuration', `${error.message}. Choose a provider in Settings.`);
    }
    const resolved = await deps.providers.resolve(provider.id);
    if (resolved.requiresApiKey && resolved.apiKey === null) {
      throw new ModelError('missingKey', await missingKeyAdvice(deps.providers, resolved));
    }
    const client = deps.createClient(resolved);
    const configured = { modelProvider: deps.configService.modelProvider(), model: deps.configService.model() };
    const listModels = (_provider: ResolvedProvider, signal: AbortSignal) => client.listModels(signal);
    const model = await resolveModel(thread.model, provider, resolved, configured, listModels);
    if (model === null) {
      const message = `${resolved.name} has no models to offer: it listed none. Load a model in it, or name one in Settings.`;
      throw new ModelError('configuration', message);
    }
    return { client, model, contextWindow: reportedContextWindow(modelInfo(model).contextWindow) };
  };
}

/** What to do about a missing key: enter it in Settings, unless this host can keep no keys at all. */
async function missingKeyAdvice(providers: ProviderResolver, resolved: ResolvedProvider): Promise<string> {
  const missing = `${resolved.name} needs an API key, and none is saved.`;
  if (await providers.canStoreKeys()) return `${missing} Enter one in Settings.`;
  // Only hosts built without key storage (tests, embedders) get here; a provider that requires a key names its variable.
  const variable = resolved.envKey ?? "named in the provider's settings";
  return `${missing} This host keeps no keys: set the environment variable ${variable} before starting Wheelhouse.`;
}
