import { z } from 'zod';
import { lookupKnownModel } from './known-models.js';
import { badShape } from './model-errors.js';
import type { ProviderConnection } from './provider-connection.js';
import type { ModelInfo } from './types.js';

const ModelList = z.object({ data: z.array(z.object({ id: z.string().min(1) })) });

/**
 * GET {baseUrl}/models, the same on both wires. Context windows and the
 * reasoning flag come from the known-models table (the endpoint does not
 * report them); unknown models get null / false. Sorted by id. One attempt:
 * a picker shows the error and the person can ask again.
 */
export async function listModels(connection: ProviderConnection, signal: AbortSignal): Promise<ModelInfo[]> {
  const body = await connection.getJson('/models', signal);
  const parsed = ModelList.safeParse(body);
  if (!parsed.success) throw badShape('a model list', `${parsed.error.message}\n${JSON.stringify(body).slice(0, 500)}`);
  const ids = [...new Set(parsed.data.data.map((model) => model.id))].sort();
  return ids.map((id) => {
    const known = lookupKnownModel(id);
    return { id, displayName: known?.displayName ?? id, contextWindow: known?.contextWindow ?? null, reasoning: known?.reasoning ?? false };
  });
}
