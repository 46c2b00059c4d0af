import type { TomlTable, TomlValue } from 'smol-toml';
import type { ConfigMergeStrategy } from '../../shared/protocol/index.js';

/** A JSON value as a client sends it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** An edit a client asked for that cannot be applied; `keyPath` names where. */
export class KeyPathError extends Error {
  constructor(
    readonly keyPath: string,
    message: string,
  ) {
    super(`${keyPath}: ${message}`);
    this.name = 'KeyPathError';
  }
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);
const SECRET_KEY = /(^|_)(api_?key|apikey|secret|password|passwd|token)$/i;
/**
 * Header names that carry credentials: Authorization, Proxy-Authorization,
 * X-Api-Key, X-Goog-Api-Key, X-Auth-Token, Cookie, X-Amz-Security-Token,
 * X-Client-Secret, Ocp-Apim-Subscription-Key…
 */
const SECRET_HEADER = /auth|api[-_]?key|token|secret|cookie|passw|credential|session|signature|subscription[-_]?key|private[-_]?key|access[-_]?key/i;
/** Header values that are credentials whatever the header is called. */
const SECRET_HEADER_VALUE = /^\s*(bearer|basic|token|digest)\s+\S|\bsk-[A-Za-z0-9_-]{6,}/i;

/** Splits `model_providers.local.base_url` into segments, rejecting empty or unsafe ones. */
export function parseKeyPath(keyPath: string): string[] {
  const segments = keyPath.split('.');
  for (const segment of segments) {
    if (!SEGMENT.test(segment) || FORBIDDEN_SEGMENTS.has(segment)) {
      const rule = 'letters, digits, "-" and "_", separated by "."';
      throw new KeyPathError(keyPath, `"${segment}" is not a valid key (${rule})`);
    }
  }
  return segments;
}

/**
 * Refuses edits that would put a credential into config.toml: keys named like
 * api_key/token/secret/password anywhere in the path or the value, and
 * credential-carrying HTTP headers. Keys belong in the secret store.
 */
export function assertNoSecret(keyPath: string, segments: readonly string[], value: JsonValue): void {
  const check = (path: readonly string[], node: JsonValue): void => {
    const last = path[path.length - 1] ?? '';
    const parent = path[path.length - 2];
    const isHeader = parent === 'http_headers';
    const credentialHeader = isHeader && (SECRET_HEADER.test(last) || (typeof node === 'string' && SECRET_HEADER_VALUE.test(node)));
    if ((!isHeader && SECRET_KEY.test(last)) || credentialHeader) {
      throw new KeyPathError(
        keyPath,
        `"${path.join('.')}" would store a credential in config.toml; ` +
          'use config/provider/setApiKey or an env_key instead',
      );
    }
    if (node !== null && typeof node === 'object' && !Array.isArray(node)) {
      for (const [key, child] of Object.entries(node)) check([...path, key], child);
    }
  };
  check(segments, value);
}

/** Applies one edit to a parsed TOML document in place. A null value removes the key. */
export function applyEdit(
  document: TomlTable,
  keyPath: string,
  value: JsonValue,
  mergeStrategy: ConfigMergeStrategy,
): void {
  const segments = parseKeyPath(keyPath);
  assertNoSecret(keyPath, segments, value);
  const leaf = segments[segments.length - 1] as string;
  const parent = tableAt(document, keyPath, segments.slice(0, -1), value !== null);
  if (parent === null) return;
  if (value === null) {
    delete parent[leaf];
    return;
  }
  const existing = parent[leaf];
  switch (mergeStrategy) {
    case 'replace':
      parent[leaf] = toToml(keyPath, value, false);
      return;
    case 'upsert':
      parent[leaf] =
        isTable(existing) && isJsonObject(value) ? merge(keyPath, existing, value) : toToml(keyPath, value, false);
      return;
    default: {
      const unknown: never = mergeStrategy;
      throw new KeyPathError(keyPath, `unknown merge strategy ${String(unknown)}`);
    }
  }
}

/** Walks to the table holding the leaf, creating tables on the way when asked. */
function tableAt(document: TomlTable, keyPath: string, segments: readonly string[], create: boolean): TomlTable | null {
  let table = document;
  for (const [index, segment] of segments.entries()) {
    const next = table[segment];
    if (next === undefined) {
      if (!create) return null;
      const fresh: TomlTable = {};
      table[segment] = fresh;
      table = fresh;
    } else if (isTable(next)) {
      table = next;
    } else {
      throw new KeyPathError(keyPath, `"${segments.slice(0, index + 1).join('.')}" is a value, not a table`);
    }
  }
  return table;
}

/** Deep-merges an object into a table; nested nulls remove keys. */
function merge(keyPath: string, target: TomlTable, patch: { [key: string]: JsonValue }): TomlTable {
  for (const [key, value] of Object.entries(patch)) {
    if (FORBIDDEN_SEGMENTS.has(key)) throw new KeyPathError(keyPath, `"${key}" is not a valid key`);
    const existing = target[key];
    if (value === null) delete target[key];
    else if (isTable(existing) && isJsonObject(value)) merge(keyPath, existing, value);
    else target[key] = toToml(keyPath, value, false);
  }
  return target;
}

/** JSON -> TOML: TOML has no null, so one is allowed only as a whole edit (removal). */
function toToml(keyPath: string, value: JsonValue, nested: boolean): TomlValue {
  if (value === null) {
    throw new KeyPathError(keyPath, nested ? 'TOML has no null; leave the key out instead' : 'null removes a key');
  }
  if (Array.isArray(value)) return value.map((item) => toToml(keyPath, item, true));
  if (typeof value === 'object') {
    const table: TomlTable = {};
    for (const [key, child] of Object.entries(value)) {
      if (FORBIDDEN_SEGMENTS.has(key)) throw new KeyPathError(keyPath, `"${key}" is not a valid key`);
      table[key] = toToml(keyPath, child, true);
    }
    return table;
  }
  return value;
}

/** A TOML table (not an array, not a date). */
export function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function isJsonObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
