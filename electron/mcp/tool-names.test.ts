import { describe, expect, it } from 'vitest';
import { assignModelToolNames, modelToolName, PROVIDER_TOOL_NAME } from './tool-names.js';

describe('model-facing MCP tool names', () => {
  it('are mcp__<server>__<tool> with characters a provider rejects replaced', () => {
    expect(modelToolName({ server: 'files', tool: 'read_text_file' })).toBe('mcp__files__read_text_file');
    expect(modelToolName({ server: 'web', tool: 'search.query v2' })).toBe('mcp__web__search_query_v2');
  });

  it('cut long names to 64 characters with a stable hash that keeps them apart', () => {
    const long = { server: 'a-server-with-a-rather-long-name', tool: 'and_a_tool_whose_name_goes_on_and_on_forever_1' };
    const other = { ...long, tool: 'and_a_tool_whose_name_goes_on_and_on_forever_2' };
    const name = modelToolName(long);
    expect(name).toMatch(PROVIDER_TOOL_NAME);
    expect(name).toHaveLength(64);
    expect(modelToolName(long)).toBe(name);
    expect(modelToolName(other)).not.toBe(name);
  });

  it('resolve collisions the same way whatever order the servers came in', () => {
    const refs = [
      { server: 'x', tool: 'a.b' },
      { server: 'x', tool: 'a_b' },
      { server: 'y', tool: 'tool' },
    ];
    const forward = [...assignModelToolNames(refs).entries()];
    const backward = [...assignModelToolNames([...refs].reverse()).entries()];
    expect(new Map(backward)).toEqual(new Map(forward));
    const names = forward.map(([name]) => name);
    expect(new Set(names).size).toBe(3);
    expect(names.every((n) => PROVIDER_TOOL_NAME.test(n))).toBe(true);
    // The first in (server, tool) order keeps the plain name.
    expect(assignModelToolNames(refs).get('mcp__x__a_b')).toEqual({ server: 'x', tool: 'a.b' });
  });
});
