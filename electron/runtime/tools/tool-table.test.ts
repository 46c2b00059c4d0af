import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, DuplicateToolError, ToolTable, type ToolEntry, type ToolScope } from './tool-table.js';

type Turn = { readonly threadId: string };

const tool = (name: string, offeredTo?: (scope: ToolScope) => boolean): ToolEntry<Turn> =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    args: z.object({ count: z.number().int().min(1).describe('How many') }),
    run: (args) => ({ success: true, output: `${name} x${args.count}` }),
    ...(offeredTo ? { offeredTo } : {}),
  });

const scope = (threadId: string, hasGoal = false): ToolScope => ({ threadId, hasGoal });

describe('the tool table', () => {
  it('refuses a second tool under a taken name with a typed error, adding nothing of that batch', async () => {
    const table = new ToolTable<Turn>().register(tool('alpha'));
    const refused = (() => {
      try {
        table.register(tool('beta'), tool('alpha'));
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refused).toBeInstanceOf(DuplicateToolError);
    expect(refused).toMatchObject({ toolName: 'alpha' });
    expect(() => new ToolTable<Turn>().register(tool('gamma'), tool('gamma'))).toThrow(DuplicateToolError);
    expect((await table.forTurn(scope('t'))).names()).toEqual(['alpha']);
    expect([...table.fixedNames()]).toEqual(['alpha']);
  });

  it('lists a turn’s tools in registration order, sources in their place, filters applied per turn', async () => {
    const perThread = new Map([['t1', [tool('client_a')]], ['t2', [tool('client_b'), tool('alpha')]]]);
    const table = new ToolTable<Turn>()
      .register(tool('alpha'))
      .registerSource({ entries: async ({ threadId }) => perThread.get(threadId) ?? [] })
      .register(tool('goal_only', (s) => s.hasGoal));
    expect((await table.forTurn(scope('t1'))).names()).toEqual(['alpha', 'client_a']);
    expect((await table.forTurn(scope('t1', true))).names()).toEqual(['alpha', 'client_a', 'goal_only']);
    // A source's row under a fixed name earlier in the order is not offered: the fixed row answers for it.
    const t2 = await table.forTurn(scope('t2'));
    expect(t2.names()).toEqual(['alpha', 'client_b']);
    expect(t2.lookup('alpha')).toBe(await table.forTurn(scope('t1')).then((tools) => tools.lookup('alpha')));
    expect(t2.lookup('goal_only')).toBeNull();
  });

  it('derives each spec from its zod schema and checks calls against that same schema', () => {
    const entry = tool('alpha');
    expect(entry.spec).toEqual({
      name: 'alpha',
      description: 'The alpha tool.',
      parameters: {
        type: 'object',
        properties: { count: { type: 'integer', minimum: 1, maximum: 9007199254740991, description: 'How many' } },
        required: ['count'],
        additionalProperties: false,
      },
    });
    expect(entry.args.check({ json: true, value: { count: 2 } })).toEqual({ ok: true, value: { count: 2 } });
    expect(entry.args.check({ json: true, value: { count: 0 } })).toMatchObject({ ok: false, problem: expect.stringMatching(/^count: /) });
    expect(entry.args.check({ json: true, value: { count: 1, extra: true } })).toMatchObject({ ok: false, problem: expect.stringContaining('extra') });
    expect(entry.args.check({ json: false, text: '{count: 1' })).toEqual({ ok: false, problem: 'not valid JSON: {count: 1' });
  });
});
