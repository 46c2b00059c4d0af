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
      throw new ModelError('configuration', await missingKeyAdvice(deps.providers, resolved));
    }
    const client = deps.createClient(resolved);
    const configured = { modelProvider: deps.configService.modelProvider(), model: deps.configService.model() };
    const listModels = (_provider: ResolvedProvider, signal: AbortSignal) => client.listModels(signal);
    const model = await resolveModel(thread.model, provider, resolved, configured, listModels);
    if (model === null) {
      const message = `${resolved.name} has no default model and listed none. Choose a model in Settings.`;
      throw new ModelError('configuration', message);
    }
    return { client, model, contextWindow: modelInfo(model).contextWindow };
  };
}

/** What to do about a missing key, naming only what this machine offers (a key field needs a keychain). */
async function missingKeyAdvice(providers: ProviderResolver, resolved: ResolvedProvider): Promise<string> {
  const missing = `No API key for ${resolved.name}.`;
  if (await providers.canStoreKeys()) {
    const env = resolved.envKey ? `, or set the environment variable ${resolved.envKey}` : '';
    return `${missing} Enter one in Settings${env}.`;
  }
  // Only providers with an env_key (or a built-in one) require a key, so there is always a variable to name.
  const variable = resolved.envKey ?? "named in the provider's settings";
  return `${missing} This computer has no keychain Wheelhouse can keep keys in, so set the environment variable ${variable} and restart Wheelhouse.`;
}
