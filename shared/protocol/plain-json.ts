/**
 * Checks that recognise the commonest messages without zod, so the first
 * request is answered before zod loads (docs/startup.md). Each accepts only
 * what its schema accepts and returns what the schema returns, and leaves
 * everything else to the schema; their tests hold each beside its schema.
 */

/** An object as JSON.parse makes it (no prototype tricks), none of whose values is `undefined` (left to the schema). */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && Object.values(value).every((field) => field !== undefined);
}

/** wire.ts's `RequestMessage` as sent (a string or integer id, a method name), or null: classify it with the schema. */
export function plainRequestMessage(value: unknown): { id: string | number; method: string; params?: unknown } | null {
  if (!isPlainRecord(value)) return null;
  const { id, method } = value;
  if (!((typeof id === 'string' && id.length <= 256) || Number.isSafeInteger(id))) return null;
  if (typeof method !== 'string' || method.length < 1 || method.length > 256) return null;
  return 'params' in value ? { id: id as string | number, method, params: value['params'] } : { id: id as string | number, method };
}
