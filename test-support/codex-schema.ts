import fs from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { repoRoot } from './paths.js';

/**
 * Codex 0.169.0's own JSON Schema of the app-server protocol, loaded into Ajv,
 * so tests can check that every message Wheelhouse exchanges on a Codex method
 * is one a Codex client (generated from that schema) would accept.
 *
 * The schema lives beside the repository in `../shared/reference/` (CI clones
 * the repo with a copy of shared/ next to it). `CODEX_SCHEMA_PATH` overrides
 * the location (a git worktree sits elsewhere). A missing schema is an error,
 * never a skip: without it the conformance checks would silently pass.
 */
export const CODEX_PROTOCOL_VERSION = '0.169.0';

export function codexSchemaPath(): string {
  return (
    process.env.CODEX_SCHEMA_PATH ??
    path.resolve(repoRoot, '../shared/reference', `codex-app-server-${CODEX_PROTOCOL_VERSION}.schema.json`)
  );
}

/** Which schema definitions describe one method's messages. */
export interface CodexMethodSchemas {
  /** `#/definitions/...` of the params (undefined: the method takes none). */
  readonly params: string | undefined;
  /** `#/definitions/...` of the result (requests only; Params → Response). */
  readonly result: string | undefined;
}

export type CodexMessageKind = 'clientRequest' | 'clientNotification' | 'serverNotification' | 'serverRequest';

/** One failed check: where, and the first thing that is wrong. */
export interface SchemaFailure {
  /** JSON path inside the checked value, e.g. `/thread/projectId` (empty: the value itself). */
  readonly path: string;
  readonly message: string;
}

interface UnionEntry {
  properties?: { method?: { enum?: string[] }; params?: { $ref?: string } };
}

/** Integer formats Codex's generator writes (Rust integer types); checked, not ignored. */
const INTEGER_FORMATS: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint16: [0, 2 ** 16 - 1],
  uint32: [0, 2 ** 32 - 1],
  uint64: [0, Number.MAX_SAFE_INTEGER],
  uint: [0, Number.MAX_SAFE_INTEGER],
};

const SCHEMA_ID = 'codex-app-server';
/** The same schema where every property that may be null must be present: what Codex itself emits. */
const COMPLETE_SCHEMA_ID = 'codex-app-server-complete';

/** Requests whose result is not named after their params (`<X>Params` → `<X>Response`) in Codex's protocol crate. */
const RESPONSE_OF: Readonly<Record<string, string>> = {
  ConfigValueWrite: 'ConfigWriteResponse',
  ConfigBatchWrite: 'ConfigWriteResponse',
};

export class CodexSchema {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();
  readonly methods: Record<CodexMessageKind, ReadonlyMap<string, CodexMethodSchemas>>;

  private constructor(schema: Record<string, unknown>) {
    this.ajv = new Ajv({ strict: false, allErrors: false });
    for (const [name, [min, max]] of Object.entries(INTEGER_FORMATS)) {
      this.ajv.addFormat(name, { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= min && n <= max });
    }
    this.ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
    this.ajv.addSchema(schema, SCHEMA_ID);
    this.ajv.addSchema(requireNullableProperties(structuredClone(schema)), COMPLETE_SCHEMA_ID);
    const definitions = schema.definitions as Record<string, { oneOf?: UnionEntry[] }>;
    const index = (union: string, withResult: boolean) => {
      const entries = definitions[union]?.oneOf;
      if (!entries) throw new Error(`Codex schema has no definitions.${union}`);
      const table = new Map<string, CodexMethodSchemas>();
      for (const entry of entries) {
        const method = entry.properties?.method?.enum?.[0];
        if (!method) continue;
        const params = entry.properties?.params?.$ref;
        const result = withResult && params ? params.replace(/(\w+)Params$/, (_, stem: string) => RESPONSE_OF[stem] ?? `${stem}Response`) : undefined;
        table.set(method, { params, result });
      }
      return table;
    };
    this.methods = {
      clientRequest: index('ClientRequest', true),
      clientNotification: index('ClientNotification', false),
      serverNotification: index('ServerNotification', false),
      serverRequest: index('ServerRequest', true),
    };
  }

  /** Loads the schema; throws naming the path when it is missing or unreadable. */
  static load(file = codexSchemaPath()): CodexSchema {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(
        `Codex's app-server schema is missing: ${file} (${(error as Error).message}). ` +
          'The conformance checks need shared/reference/ beside the repository, or CODEX_SCHEMA_PATH.',
        { cause: error },
      );
    }
    return new CodexSchema(JSON.parse(text) as Record<string, unknown>);
  }

  /**
   * Validates `value` against `#/definitions/...`; undefined when it is valid.
   * `complete`: also demand every nullable property (`null` when there is no
   * value), as Codex sends them; used for what the server emits.
   */
  check(ref: string, value: unknown, options: { complete?: boolean } = {}): SchemaFailure | undefined {
    const id = `${options.complete ? COMPLETE_SCHEMA_ID : SCHEMA_ID}${ref}`;
    let validate = this.compiled.get(id);
    if (!validate) {
      validate = this.ajv.getSchema(id);
      if (!validate) throw new Error(`Codex schema has no ${ref}`);
      this.compiled.set(id, validate);
    }
    try {
      if (validate(value)) return undefined;
    } catch (error) {
      // Ajv recurses with the value: one nested thousands of levels deep overflows the stack.
      if (error instanceof RangeError) return { path: '', message: `too deeply nested to check (${error.message})` };
      throw error;
    }
    return describeFailure(validate, value);
  }
}

/**
 * Codex serialises `Option<T>` fields as `null` rather than leaving them out,
 * and its clients read them so: a property whose schema admits null is made
 * required. Optional properties that cannot be null stay optional.
 */
function requireNullableProperties<T>(node: T): T {
  if (Array.isArray(node)) {
    node.forEach(requireNullableProperties);
  } else if (node !== null && typeof node === 'object') {
    const schema = node as Record<string, unknown>;
    const properties = schema.properties as Record<string, unknown> | undefined;
    if (properties && typeof properties === 'object' && !Array.isArray(properties)) {
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      for (const [key, property] of Object.entries(properties)) if (admitsNull(property)) required.add(key);
      schema.required = [...required];
    }
    for (const [key, value] of Object.entries(schema)) {
      // Maps of named sub-schemas: their keys are names, not keywords (a property may be called "required").
      if ((key === 'properties' || key === 'definitions' || key === 'patternProperties') && value && typeof value === 'object') {
        Object.values(value).forEach(requireNullableProperties);
      } else if (key !== 'required' && key !== 'enum' && key !== 'const' && key !== 'default' && key !== 'examples') {
        requireNullableProperties(value);
      }
    }
  }
  return node;
}

function admitsNull(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  const s = schema as { type?: unknown; anyOf?: unknown[]; oneOf?: unknown[] };
  if (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null'))) return true;
  return [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(admitsNull);
}

/**
 * Ajv reports every branch of a failed `oneOf`/`anyOf`; the deepest error is
 * the one that names the field a person has to fix.
 */
function describeFailure(validate: ValidateFunction, value: unknown): SchemaFailure {
  const errors = validate.errors ?? [];
  const deepest = [...errors].sort((a, b) => depth(b.instancePath) - depth(a.instancePath))[0];
  if (!deepest) return { path: '', message: 'invalid' };
  const missing = deepest.keyword === 'required' ? `/${String(deepest.params.missingProperty)}` : '';
  const at = `${deepest.instancePath}${missing}`;
  const detail = deepest.keyword === 'required' ? 'is required' : (deepest.message ?? 'invalid');
  return { path: at, message: `${detail} (value: ${preview(valueAt(value, deepest.instancePath))})` };
}

const depth = (pointer: string) => (pointer === '' ? 0 : pointer.split('/').length);

function valueAt(value: unknown, pointer: string): unknown {
  let current = value;
  for (const key of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return current;
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'undefined';
  } catch {
    return '(too deeply nested to show)';
  }
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}
