import { lookupKnownModel } from '../model/known-models.js';
import type { ModelInfo, ResolvedProvider } from '../model/types.js';

/** A provider as configured (built-in, overridden or added by config.toml), before its key is looked up. */
export interface ProviderConfig extends Omit<ResolvedProvider, 'apiKey'> {
  readonly builtIn: boolean;
  /** The model used when neither the thread nor config.toml names one. */
  readonly defaultModel: string | null;
  /** Models Wheelhouse knows for this provider, offered when the provider cannot be asked. */
  readonly knownModels: readonly ModelInfo[];
}

/** Used when config.toml sets no `model_provider`. */
export const DEFAULT_PROVIDER_ID = 'deepseek';

/** Codex defaults for the retry and idle settings. */
export const PROVIDER_DEFAULTS = {
  requestMaxRetries: 4,
  streamMaxRetries: 5,
  streamIdleTimeoutMs: 300_000,
} as const;

/** What Wheelhouse knows about a model id (context window, reasoning), or just its name. */
export function modelInfo(id: string): ModelInfo {
  const known = lookupKnownModel(id);
  return known
    ? { id, displayName: known.displayName, contextWindow: known.contextWindow, reasoning: known.reasoning }
    : { id, displayName: id, contextWindow: null, reasoning: false };
}

const base = { builtIn: true, httpHeaders: {}, ...PROVIDER_DEFAULTS } as const;

/** Providers Wheelhouse ships with; `[model_providers.<id>]` tables override their fields. */
export const BUILTIN_PROVIDERS: readonly ProviderConfig[] = [
  {
    ...base,
    id: 'deepseek',
    name: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com',
    wireApi: 'chat',
    envKey: 'DEEPSEEK_API_KEY',
    requiresApiKey: true,
    defaultModel: 'deepseek-chat',
    knownModels: ['deepseek-chat', 'deepseek-reasoner'].map(modelInfo),
  },
  {
    ...base,
    id: 'openai',
    name: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    wireApi: 'responses',
    envKey: 'OPENAI_API_KEY',
    requiresApiKey: true,
    defaultModel: 'gpt-5',
    knownModels: ['gpt-5', 'gpt-5-mini', 'gpt-4.1', 'o4-mini'].map(modelInfo),
  },
  {
    ...base,
    id: 'ollama',
    name: 'Ollama',
    baseUrl: 'http://localhost:11434/v1',
    wireApi: 'chat',
    envKey: null,
    requiresApiKey: false,
    defaultModel: null,
    knownModels: [],
  },
  {
    ...base,
    id: 'lmstudio',
    name: 'LM Studio',
    baseUrl: 'http://localhost:1234/v1',
    wireApi: 'chat',
    envKey: null,
    requiresApiKey: false,
    defaultModel: null,
    knownModels: [],
  },
];

/** Whether an id names a provider Wheelhouse ships with. */
export function isBuiltInProvider(id: string): boolean {
  return BUILTIN_PROVIDERS.some((provider) => provider.id === id);
}
