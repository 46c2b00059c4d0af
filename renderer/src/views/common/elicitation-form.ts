import type { McpElicitationPrimitiveSchema, McpElicitationSchema } from '../../../../shared/protocol/methods/mcp-elicitation.js';

/** One field of an elicitation form, as the dialog draws it. */
export interface ElicitationField {
  readonly key: string;
  readonly kind: 'text' | 'number' | 'integer' | 'boolean' | 'select' | 'multi';
  readonly label: string;
  readonly description: string | null;
  readonly required: boolean;
  readonly options: ReadonlyArray<{ readonly value: string; readonly label: string }>;
  /** `email`, `uri`, `date`, `date-time` (text fields). */
  readonly format: string | null;
  readonly min: number | null;
  readonly max: number | null;
  readonly initial: string | boolean | readonly string[];
}

/** What the person typed or chose, by field key (numbers stay text until sent). */
export type ElicitationValues = Record<string, string | boolean | readonly string[]>;

export function elicitationFields(schema: McpElicitationSchema): ElicitationField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([key, property]) => fieldOf(key, property, required.has(key)));
}

function fieldOf(key: string, p: McpElicitationPrimitiveSchema, required: boolean): ElicitationField {
  const base = { key, label: p.title || key, description: p.description ?? null, required, options: [], format: null, min: null, max: null };
  if (p.type === 'boolean') return { ...base, kind: 'boolean', initial: p.default ?? false };
  if (p.type === 'array') {
    const options = 'enum' in p.items ? p.items.enum.map((v) => ({ value: v, label: v })) : p.items.anyOf.map((o) => ({ value: o.const, label: o.title }));
    return { ...base, kind: 'multi', options, min: p.minItems ?? null, max: p.maxItems ?? null, initial: p.default ?? [] };
  }
  if ('oneOf' in p) return { ...base, kind: 'select', options: p.oneOf.map((o) => ({ value: o.const, label: o.title })), initial: p.default ?? '' };
  if ('enum' in p) {
    const options = p.enum.map((value, i) => ({ value, label: p.enumNames?.[i] ?? value }));
    return { ...base, kind: 'select', options, initial: p.default ?? '' };
  }
  if (p.type === 'string') {
    return { ...base, kind: 'text', format: p.format ?? null, min: p.minLength ?? null, max: p.maxLength ?? null, initial: p.default ?? '' };
  }
  return { ...base, kind: p.type, min: p.minimum ?? null, max: p.maximum ?? null, initial: p.default == null ? '' : String(p.default) };
}

export function initialValues(fields: readonly ElicitationField[]): ElicitationValues {
  return Object.fromEntries(fields.map((field) => [field.key, field.initial]));
}

/**
 * The `content` of an accept, or what is wrong per field. Empty optional
 * fields are left out; numbers are parsed and range-checked, as the server's
 * schema asks.
 */
export function elicitationContent(
  fields: readonly ElicitationField[],
  values: ElicitationValues,
): { ok: true; content: Record<string, unknown> } | { ok: false; errors: Record<string, string> } {
  const content: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const value = values[field.key];
    if (field.kind === 'boolean') {
      content[field.key] = value === true;
      continue;
    }
    if (field.kind === 'multi') {
      const chosen = Array.isArray(value) ? value : [];
      if (chosen.length === 0 && !field.required) continue;
      if (field.min !== null && chosen.length < field.min) errors[field.key] = `Choose at least ${field.min}.`;
      else if (field.max !== null && chosen.length > field.max) errors[field.key] = `Choose at most ${field.max}.`;
      else content[field.key] = chosen;
      continue;
    }
    const text = typeof value === 'string' ? value.trim() : '';
    if (text === '') {
      if (field.required) errors[field.key] = 'Required.';
      continue;
    }
    if (field.kind === 'number' || field.kind === 'integer') {
      const number = Number(text);
      if (!Number.isFinite(number)) errors[field.key] = 'Enter a number.';
      else if (field.kind === 'integer' && !Number.isInteger(number)) errors[field.key] = 'Enter a whole number.';
      else if (field.min !== null && number < field.min) errors[field.key] = `At least ${field.min}.`;
      else if (field.max !== null && number > field.max) errors[field.key] = `At most ${field.max}.`;
      else content[field.key] = number;
      continue;
    }
    if (field.kind === 'text' && field.min !== null && text.length < field.min) errors[field.key] = `At least ${field.min} characters.`;
    else if (field.kind === 'text' && field.max !== null && text.length > field.max) errors[field.key] = `At most ${field.max} characters.`;
    else content[field.key] = text;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, content };
}
