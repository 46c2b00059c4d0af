import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { repoRoot } from './paths.js';

/** Codex 0.169.0's app-server JSON Schema (see /work/shared/reference/README.md), when present on this machine. */
const schemaPath = [
  process.env['CODEX_SCHEMA_PATH'],
  path.join(repoRoot, '..', '..', 'shared', 'reference', 'codex-app-server-0.169.0.schema.json'),
  '/work/shared/reference/codex-app-server-0.169.0.schema.json',
].find((candidate): candidate is string => candidate !== undefined && fs.existsSync(candidate));

let ajv: Ajv | undefined;

/** Errors of `value` against `definitions/v2/<type>` of the Codex schema; [] when it conforms. */
export function codexSchemaErrors(type: string, value: unknown): string[] {
  if (!schemaPath) throw new Error('the Codex schema is not on this machine; set CODEX_SCHEMA_PATH');
  if (!ajv) {
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(JSON.parse(fs.readFileSync(schemaPath, 'utf8')) as object, 'codex');
  }
  const validate = ajv.getSchema(`codex#/definitions/v2/${type}`);
  if (!validate) throw new Error(`no Codex type v2/${type}`);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}
