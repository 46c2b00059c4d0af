import { describe, expect, it } from 'vitest';
import { builtinTools } from './builtin-tools.js';
import { ToolRegistry } from './tool-registry.js';

describe('tool JSON schemas sent to the model', () => {
  it('are generated from the zod argument schemas, limits included', () => {
    const readFile = builtinTools().find((tool) => tool.spec.name === 'read_file');
    expect(readFile?.spec.parameters).toMatchObject({
      type: 'object',
      required: ['path'],
      additionalProperties: false,
      properties: {
        path: { type: 'string', minLength: 1, maxLength: 4096, description: 'File path relative to the project root' },
        lineCount: { type: 'integer', minimum: 1, maximum: 5000 },
      },
    });
    expect(readFile?.spec.parameters).not.toHaveProperty('$schema');
  });

  it('are byte-identical on every request (provider prompt caches)', () => {
    const first = JSON.stringify(new ToolRegistry(builtinTools()).specs());
    const second = JSON.stringify(new ToolRegistry(builtinTools()).specs());
    expect(second).toBe(first);
    expect(first).toContain('"name":"list_directory"');
  });

  it('refuse the same arguments as the schema the model was given', async () => {
    const registry = new ToolRegistry(builtinTools());
    const result = await registry.invoke('read_file', JSON.stringify({ path: '' }), {
      cwd: process.cwd(),
      signal: new AbortController().signal,
    });
    expect(result).toMatchObject({ success: false });
    expect(result.output).toMatch(/Invalid arguments for read_file: path/);
  });
});
