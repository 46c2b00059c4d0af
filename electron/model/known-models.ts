/**
 * Facts about well-known models that GET /models does not report.
 *
 * Sources (checked when this table was written; update alongside them):
 * - DeepSeek: api-docs.deepseek.com "Models & Pricing" — deepseek-chat and
 *   deepseek-reasoner (DeepSeek-V3.2, non-thinking / thinking mode), 128K context.
 * - OpenAI: platform.openai.com/docs/models — GPT-5 family 400K, GPT-4.1
 *   family 1,047,576, GPT-4o family 128K, o3 / o4-mini / o3-mini 200K. Reasoning
 *   efforts (`reasoning.effort`): GPT-5, -mini, -nano minimal to high; GPT-5-Codex and the
 *   o-series low to high. Image input: every model here but o3-mini and DeepSeek's.
 */

export interface KnownModel {
  readonly displayName: string;
  readonly contextWindow: number;
  /** The model streams reasoning (DeepSeek reasoning_content, OpenAI reasoning summaries). */
  readonly reasoning: boolean;
  /** The reasoning efforts the model accepts (OpenAI `reasoning.effort`); none when it has no effort control. */
  readonly efforts?: readonly ReasoningEffort[];
  /** What the model reads besides text (Codex's `inputModalities`). */
  readonly images?: boolean;
}

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

/** One line per effort, as a model picker shows it (Codex's wording where it has one). */
export const REASONING_EFFORT_DESCRIPTIONS: Readonly<Record<ReasoningEffort, string>> = {
  minimal: 'Fastest responses with very little reasoning',
  low: 'Fast responses with lighter reasoning',
  medium: 'Balances speed and reasoning depth for everyday tasks',
  high: 'Greater reasoning depth for complex problems',
};

/**
 * Codex counts 95% of a model's window as usable (`effective_context_window_percent` in its model
 * metadata: the rest is kept for the system prompt, tools and the reply's overhead) and reports
 * that in `thread/tokenUsage/updated`'s `modelContextWindow`, so a client's context meter fills
 * as it does under Codex. The raw window stays what `model/list` and the model picker show.
 */
export const EFFECTIVE_CONTEXT_WINDOW_PERCENT = 95;

/** The part of a window Codex reports as usable (integer arithmetic, as Codex's i64). */
export function effectiveContextWindow(rawWindow: number): number {
  return Math.floor((rawWindow * EFFECTIVE_CONTEXT_WINDOW_PERCENT) / 100);
}

/**
 * The raw window of a model outside this table, as Codex 0.169 assumes it: its fallback model
 * metadata for an unknown slug (`model_info_from_slug` in codex-rs) gives 272,000 tokens, so
 * Codex reports `modelContextWindow: 258400` for one.
 */
export const UNKNOWN_MODEL_RAW_CONTEXT_WINDOW = 272_000;

/** What `thread/tokenUsage/updated` reports as `modelContextWindow` for a model: its usable window, as Codex does. */
export function reportedContextWindow(rawWindow: number | null): number {
  return effectiveContextWindow(rawWindow ?? UNKNOWN_MODEL_RAW_CONTEXT_WINDOW);
}

const GPT5_EFFORTS: readonly ReasoningEffort[] = ['minimal', 'low', 'medium', 'high'];
const O_SERIES_EFFORTS: readonly ReasoningEffort[] = ['low', 'medium', 'high'];

const KNOWN_MODELS: Readonly<Record<string, KnownModel>> = {
  'deepseek-chat': { displayName: 'DeepSeek-V3.2 (chat)', contextWindow: 128_000, reasoning: false },
  'deepseek-reasoner': { displayName: 'DeepSeek-V3.2 (thinking)', contextWindow: 128_000, reasoning: true },
  'gpt-5': { displayName: 'GPT-5', contextWindow: 400_000, reasoning: true, efforts: GPT5_EFFORTS, images: true },
  'gpt-5-mini': { displayName: 'GPT-5 mini', contextWindow: 400_000, reasoning: true, efforts: GPT5_EFFORTS, images: true },
  'gpt-5-nano': { displayName: 'GPT-5 nano', contextWindow: 400_000, reasoning: true, efforts: GPT5_EFFORTS, images: true },
  'gpt-5-codex': { displayName: 'GPT-5-Codex', contextWindow: 400_000, reasoning: true, efforts: O_SERIES_EFFORTS, images: true },
  'gpt-4.1': { displayName: 'GPT-4.1', contextWindow: 1_047_576, reasoning: false, images: true },
  'gpt-4.1-mini': { displayName: 'GPT-4.1 mini', contextWindow: 1_047_576, reasoning: false, images: true },
  'gpt-4.1-nano': { displayName: 'GPT-4.1 nano', contextWindow: 1_047_576, reasoning: false, images: true },
  'gpt-4o': { displayName: 'GPT-4o', contextWindow: 128_000, reasoning: false, images: true },
  'gpt-4o-mini': { displayName: 'GPT-4o mini', contextWindow: 128_000, reasoning: false, images: true },
  o3: { displayName: 'o3', contextWindow: 200_000, reasoning: true, efforts: O_SERIES_EFFORTS, images: true },
  'o3-mini': { displayName: 'o3-mini', contextWindow: 200_000, reasoning: true, efforts: O_SERIES_EFFORTS },
  'o4-mini': { displayName: 'o4-mini', contextWindow: 200_000, reasoning: true, efforts: O_SERIES_EFFORTS, images: true },
};

/**
 * Looks a model id up: exact id first, then the longest known id that the
 * given one extends with `-suffix` (dated snapshots such as
 * `gpt-4o-2024-08-06`). A router prefix like `openai/` is ignored.
 */
export function lookupKnownModel(modelId: string): KnownModel | null {
  const id = modelId.slice(modelId.lastIndexOf('/') + 1).toLowerCase();
  const exact = KNOWN_MODELS[id];
  if (exact) return exact;
  let best: string | null = null;
  for (const known of Object.keys(KNOWN_MODELS)) {
    if (id.startsWith(`${known}-`) && (best === null || known.length > best.length)) best = known;
  }
  return best === null ? null : (KNOWN_MODELS[best] ?? null);
}
