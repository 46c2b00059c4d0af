/**
 * The HTTP API speaks snake_case (seed 004); the runtime speaks camelCase
 * (Codex). This converts the runtime's object keys deeply, except inside values that are
 * the client's or the model's own data (tool arguments, JSON Schemas), whose
 * keys must reach the other side untouched.
 */
const OPAQUE_KEYS = new Set(['arguments', 'inputSchema', 'input_schema', 'state']);

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

export function toSnakeKeys(value: unknown): unknown {
  return mapKeys(value, snakeCase);
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
