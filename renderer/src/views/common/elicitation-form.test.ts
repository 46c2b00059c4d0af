import { describe, expect, it } from 'vitest';
import { elicitationContent, elicitationFields, initialValues } from './elicitation-form.js';

const schema = {
  type: 'object' as const,
  required: ['name', 'count'],
  properties: {
    name: { type: 'string' as const, title: 'Name', minLength: 2 },
    count: { type: 'integer' as const, minimum: 1, maximum: 10, default: 3 },
    ratio: { type: 'number' as const },
    agree: { type: 'boolean' as const, default: true },
    pet: { type: 'string' as const, enum: ['p1', 'p2'], enumNames: ['Cats', 'Dogs'] },
    hero: { type: 'string' as const, oneOf: [{ const: 'h1', title: 'Superman' }], default: 'h1' },
    fish: { type: 'array' as const, minItems: 1, maxItems: 2, items: { anyOf: [{ const: 'f1', title: 'Tuna' }, { const: 'f2', title: 'Trout' }, { const: 'f3', title: 'Cod' }] } },
  },
};

describe('elicitation form', () => {
  it('draws each field with its kind, label, options and default', () => {
    const fields = elicitationFields(schema);
    expect(fields.map((f) => [f.key, f.kind, f.label, f.required])).toEqual([
      ['name', 'text', 'Name', true],
      ['count', 'integer', 'count', true],
      ['ratio', 'number', 'ratio', false],
      ['agree', 'boolean', 'agree', false],
      ['pet', 'select', 'pet', false],
      ['hero', 'select', 'hero', false],
      ['fish', 'multi', 'fish', false],
    ]);
    expect(fields[4]?.options).toEqual([{ value: 'p1', label: 'Cats' }, { value: 'p2', label: 'Dogs' }]);
    expect(initialValues(fields)).toMatchObject({ name: '', count: '3', agree: true, hero: 'h1', fish: [] });
  });

  it('sends typed content and leaves empty optional fields out', () => {
    const fields = elicitationFields(schema);
    const result = elicitationContent(fields, { ...initialValues(fields), name: ' Ada ', ratio: '0.5', fish: ['f1'] });
    expect(result).toEqual({ ok: true, content: { name: 'Ada', count: 3, ratio: 0.5, agree: true, hero: 'h1', fish: ['f1'] } });
  });

  it('says what is wrong per field instead of sending', () => {
    const fields = elicitationFields(schema);
    const result = elicitationContent(fields, { ...initialValues(fields), name: 'A', count: '11', ratio: 'lots', fish: ['f1', 'f2', 'f3'] });
    expect(result).toEqual({
      ok: false,
      errors: { name: 'At least 2 characters.', count: 'At most 10.', ratio: 'Enter a number.', fish: 'Choose at most 2.' },
    });
    expect(elicitationContent(fields, { ...initialValues(fields), name: 'Ada', count: '2.5' })).toEqual({ ok: false, errors: { count: 'Enter a whole number.' } });
  });
});
