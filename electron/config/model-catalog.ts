import { MODEL_CODEX_NULLS, type ModelListEntry, type ModelListResult } from '../../shared/protocol/index.js';
import { lookupKnownModel, REASONING_EFFORT_DESCRIPTIONS } from '../model/known-models.js';
import { ModelError, type ModelInfo, type ResolvedProvider } from '../model/types.js';
import { modelInfo, type ProviderConfig } from './builtin-providers.js';

/** Asks a provider for its models (in the app: a ModelClient's listModels). */
export type ListModels = (provider: ResolvedProvider, signal: AbortSignal) => Promise<ModelInfo[]>;

/** How long model/list waits for a provider before offering the known models. */
const MODEL_LIST_TIMEOUT_MS = 8_000;

/** What config.toml chose: `model` applies to `model_provider` only. */
export interface ConfiguredModel {
  readonly modelProvider: string;
  readonly model: string | null;
}

/**
 * The model used when a thread asks for none (or "auto"): the configured
 * `model` when this is the configured provider, else the provider's default
 * model, else the first model listed.
 */
export function pickDefaultModel(
  provider: ProviderConfig,
  configured: ConfiguredModel,
  listed: readonly ModelInfo[],
): string | null {
  if (configured.model !== null && configured.modelProvider === provider.id) return configured.model;
  return provider.defaultModel ?? listed[0]?.id ?? null;
}

/**
 * Resolves a requested model name; null or "auto" means the default, asking
 * the provider only if needed. When the provider had to be asked and could
 * not answer (down, refusing the key), that failure is thrown: it, not a
 * missing model, is what the person needs to hear. Null: it answered with no models.
 */
export async function resolveModel(
  requested: string | null,
  provider: ProviderConfig,
  resolved: ResolvedProvider,
  configured: ConfiguredModel,
  listModels: ListModels,
): Promise<string | null> {
  if (requested !== null && requested !== 'auto') return requested;
  const chosen = pickDefaultModel(provider, configured, []);
  if (chosen !== null) return chosen;
  const listing = await fetchModels(provider, resolved, listModels, MODEL_LIST_TIMEOUT_MS);
  if (listing.failure !== null && listing.models.length === 0) {
    throw listing.failure instanceof ModelError ? listing.failure : new ModelError('timeout', errorText(listing.failure));
  }
  return listing.models[0]?.id ?? null;
}

/** The provider's models, or the known ones and why the provider's could not be had. */
async function fetchModels(
  provider: ProviderConfig,
  resolved: ResolvedProvider,
  listModels: ListModels,
  timeoutMs: number,
): Promise<{ models: readonly ModelInfo[]; source: ModelListResult['source']; failure: unknown }> {
  try {
    return { models: (await withDeadline(listModels, resolved, timeoutMs)).map(enrich), source: 'provider', failure: null };
  } catch (failure) {
    return { models: provider.knownModels, source: 'known', failure };
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The provider's own model list when it answers in time, Wheelhouse's known
 * models for it otherwise; known facts (context window, reasoning) fill gaps
 * in the provider's answer.
 */
export async function listProviderModels(
  provider: ProviderConfig,
  resolved: ResolvedProvider,
  configured: ConfiguredModel,
  listModels: ListModels,
  timeoutMs: number = MODEL_LIST_TIMEOUT_MS,
): Promise<ModelListResult> {
  const { models, source, failure } = await fetchModels(provider, resolved, listModels, timeoutMs);
  const error = failure === null ? null : errorText(failure);
  const defaultId = pickDefaultModel(provider, configured, models);
  return {
    providerId: provider.id,
    data: models.map((model) => ({
      id: model.id,
      model: model.id,
      displayName: model.displayName,
      description: '',
      hidden: false,
      isDefault: model.id === defaultId,
      // Wheelhouse does not choose reasoning effort; the provider's default applies.
      defaultReasoningEffort: model.reasoning ? 'medium' : 'none',
      ...codexModelFacts(model.id),
      ...MODEL_CODEX_NULLS,
      contextWindow: model.contextWindow,
      reasoning: model.reasoning,
    })),
    nextCursor: null,
    source,
    error,
  };
}

/**
 * Codex's model facts from Wheelhouse's catalogue (schema defaults for a model
 * outside it). `inputModalities` is what Wheelhouse can pass on, not only what
 * the model reads: turns carry text only, so a client never offers an image
 * that would be refused. No service or speed tiers (Wheelhouse sends no
 * `service_tier`); personality is deprecated and always false in Codex.
 */
function codexModelFacts(modelId: string): Pick<ModelListEntry, 'supportedReasoningEfforts' | 'inputModalities' | 'supportsPersonality' | 'serviceTiers' | 'additionalSpeedTiers'> {
  const known = lookupKnownModel(modelId);
  return {
    supportedReasoningEfforts: (known?.efforts ?? []).map((effort) => ({ reasoningEffort: effort, description: REASONING_EFFORT_DESCRIPTIONS[effort] })),
    inputModalities: ['text'],
    supportsPersonality: false,
    serviceTiers: [],
    additionalSpeedTiers: [],
  };
}

function enrich(model: ModelInfo): ModelInfo {
  const known = modelInfo(model.id);
  return {
    id: model.id,
    displayName: model.displayName && model.displayName !== model.id ? model.displayName : known.displayName,
    contextWindow: model.contextWindow ?? known.contextWindow,
    reasoning: model.reasoning || known.reasoning,
  };
}

/** Aborts the listing at the deadline and stops waiting even if the lister ignores the signal. */
async function withDeadline(
  listModels: ListModels,
  resolved: ResolvedProvider,
  timeoutMs: number,
): Promise<ModelInfo[]> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const limit = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
      const error = new Error(`${resolved.name} did not list its models within ${limit}`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([listModels(resolved, controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
