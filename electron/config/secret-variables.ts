import type { ConfigSnapshot } from './config-file.js';
import { BUILTIN_PROVIDERS } from './builtin-providers.js';

/**
 * Names of the environment variables that hold secrets, which no child
 * process gets unless the person lists them for it: every provider's
 * `env_key` (the built-in names too, even where config.toml renames them,
 * and names in tables too broken to use: the variable still holds a key) and
 * each MCP HTTP server's `bearer_token_env_var`.
 */
export function secretVariableNames(snapshot: Pick<ConfigSnapshot, 'document'>): Set<string> {
  const names = new Set<string>();
  for (const provider of BUILTIN_PROVIDERS) if (provider.envKey) names.add(provider.envKey);
  // The raw document, not the validated settings: a table dropped for a bad value still names a key.
  for (const table of Object.values(tablesOf(snapshot.document['model_providers']))) {
    if (typeof table['env_key'] === 'string' && table['env_key'] !== '') names.add(table['env_key']);
  }
  for (const table of Object.values(tablesOf(snapshot.document['mcp_servers']))) {
    const name = table['bearer_token_env_var'];
    if (typeof name === 'string' && name !== '') names.add(name);
  }
  return names;
}

function tablesOf(value: unknown): Record<string, Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, Record<string, unknown>] => typeof entry[1] === 'object' && entry[1] !== null && !Array.isArray(entry[1])),
  );
}
