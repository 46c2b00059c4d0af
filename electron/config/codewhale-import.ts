import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConfigEdit } from '../../shared/protocol/index.js';
import { isBuiltInProvider } from './builtin-providers.js';
import { ConfigError } from './config-error.js';
import { parseConfigText } from './config-file.js';
import { ProviderTable } from './config-schema.js';
import { isTable } from './key-path.js';

/** Where CodeWhale keeps its settings. */
export function defaultCodeWhalePath(homeDir: string = os.homedir()): string {
  return path.join(homeDir, '.codewhale', 'config.toml');
}

/** A CodeWhale provider as it will appear in Wheelhouse. */
export interface CodeWhaleProvider {
  readonly id: string;
  readonly baseUrl: string | null;
  readonly envKey: string | null;
  readonly model: string | null;
}

/** What a CodeWhale config offers, before it is written anywhere. */
export interface CodeWhalePlan {
  readonly sourcePath: string;
  readonly providers: readonly CodeWhaleProvider[];
  /** CodeWhale's top-level `provider` when it names an importable provider, else the only provider. */
  readonly defaultProvider: string | null;
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
}

/**
 * Reads `[providers.<name>]` tables (api_key_env, base_url, model) from a
 * CodeWhale config.toml. Literal API keys are never copied. Throws ConfigError
 * when the file is missing or malformed.
 */
export function readCodeWhaleConfig(sourcePath: string): CodeWhalePlan {
  let text: string;
  try {
    text = fs.readFileSync(sourcePath, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    const message = missing
      ? `No CodeWhale config at ${sourcePath}`
      : `Could not read ${sourcePath}: ${(error as Error).message}`;
    throw new ConfigError('io', message, sourcePath);
  }
  const document = parseConfigText(text, sourcePath, 'Nothing was imported.');
  const tables = isTable(document['providers']) ? document['providers'] : {};
  const providers: CodeWhaleProvider[] = [];
  const skipped: { name: string; reason: string }[] = [];
  for (const [name, table] of Object.entries(tables)) {
    if (!isTable(table)) {
      skipped.push({ name, reason: 'not a table' });
      continue;
    }
    const provider = toProvider(name, table);
    if (typeof provider === 'string') skipped.push({ name, reason: provider });
    else providers.push(provider);
    if ('api_key' in table) {
      skipped.push({ name: `${name}.api_key`, reason: 'API keys are not copied; enter the key in Settings' });
    }
  }
  const named = typeof document['provider'] === 'string' ? document['provider'] : null;
  const only = providers.length === 1 ? (providers[0]?.id ?? null) : null;
  const defaultProvider = providers.some((p) => p.id === named) ? named : only;
  return { sourcePath, providers, defaultProvider, skipped };
}

/** A provider, or why it cannot be imported. */
function toProvider(name: string, table: Record<string, unknown>): CodeWhaleProvider | string {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) return 'the name may contain only letters, digits, "-" and "_"';
  const baseUrl = typeof table['base_url'] === 'string' ? table['base_url'] : null;
  const envKey = typeof table['api_key_env'] === 'string' ? table['api_key_env'] : null;
  const model = typeof table['model'] === 'string' && table['model'].length > 0 ? table['model'] : null;
  if (baseUrl === null && !isBuiltInProvider(name)) return 'no base_url';
  const checked = ProviderTable.safeParse({
    ...(baseUrl !== null ? { base_url: baseUrl } : {}),
    ...(envKey !== null ? { env_key: envKey } : {}),
  });
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const key = issue?.path[0] === 'env_key' ? 'api_key_env' : String(issue?.path[0] ?? 'table');
    return `${key} ${issue?.message ?? 'is invalid'}`;
  }
  return { id: name, baseUrl, envKey, model };
}

/**
 * The config.toml edits that import a plan: each provider upserted into
 * `[model_providers.<id>]` (keeping keys already there), and `model_provider`
 * and `model` only when config.toml has no provider chosen yet.
 */
export function codeWhaleEdits(plan: CodeWhalePlan, hasModelProvider: boolean): {
  edits: ConfigEdit[];
  modelProvider: string | null;
  model: string | null;
} {
  const edits: ConfigEdit[] = plan.providers.map((provider) => ({
    keyPath: `model_providers.${provider.id}`,
    mergeStrategy: 'upsert',
    value: {
      ...(provider.baseUrl !== null ? { base_url: provider.baseUrl } : {}),
      ...(provider.envKey !== null ? { env_key: provider.envKey } : {}),
      wire_api: 'chat',
      ...(provider.model !== null ? { default_model: provider.model } : {}),
    },
  }));
  const chosen = hasModelProvider ? undefined : plan.providers.find((p) => p.id === plan.defaultProvider);
  if (!chosen) return { edits, modelProvider: null, model: null };
  edits.push({ keyPath: 'model_provider', value: chosen.id });
  // A `model` left from another provider would not fit; without one the provider's default applies.
  edits.push({ keyPath: 'model', value: chosen.model });
  return { edits, modelProvider: chosen.id, model: chosen.model };
}
