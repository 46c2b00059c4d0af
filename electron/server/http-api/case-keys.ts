/**
 * The HTTP API speaks snake_case (seed 004); the runtime speaks camelCase
 * (Codex). These convert object keys deeply, except inside values that are
 * the client's or the model's own data (tool arguments, JSON Schemas), whose
 * keys must reach the other side untouched.
 */
const OPAQUE_KEYS = new Set(['arguments', 'inputSchema', 'input_schema', 'state']);

export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

export function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

export function toSnakeKeys(value: unknown): unknown {
  return mapKeys(value, snakeCase);
}

export function toCamelKeys(value: unknown): unknown {
  return mapKeys(value, camelCase);
}

function mapKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((entry) => mapKeys(entry, rename));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    out[rename(key)] = OPAQUE_KEYS.has(key) ? entry : mapKeys(entry, rename);
  }
  return out;
}
