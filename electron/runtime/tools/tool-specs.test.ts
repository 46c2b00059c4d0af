import { describe, expect, it } from 'vitest';
import { LocalFiles } from '../../files/local-files.js';
import { builtinTools as builtinToolsOf } from './builtin-tools.js';
import type { WorkspaceTurn } from './turn-workspace.js';
import { ToolTable } from './tool-table.js';

const files = new LocalFiles();
const builtinTools = () => builtinToolsOf(async (turn) => ({ files, cwd: turn.cwd, environmentId: null }));

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

  it('are byte-identical on every request (provider prompt caches)', async () => {
    const scope = { threadId: 't', hasGoal: false };
    const first = JSON.stringify((await new ToolTable<WorkspaceTurn>().register(...builtinTools()).forTurn(scope)).specs);
    const second = JSON.stringify((await new ToolTable<WorkspaceTurn>().register(...builtinTools()).forTurn(scope)).specs);
    expect(second).toBe(first);
    expect(first).toContain('"name":"list_directory"');
  });

  it('refuse the same arguments as the schema the model was given', () => {
    const readFile = builtinTools().find((tool) => tool.spec.name === 'read_file')!;
    const checked = readFile.args.check({ json: true, value: { path: '' } });
    expect(checked).toMatchObject({ ok: false, problem: expect.stringMatching(/^path: /) });
  });
});
