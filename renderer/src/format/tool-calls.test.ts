import { describe, expect, it } from 'vitest';
import { labelToolCall, summarizeArguments } from './tool-calls.js';

describe('tool call cards', () => {
  it('names what the agent did and the argument that matters', () => {
    expect(labelToolCall('read_file', { path: 'src/app.ts', startLine: 10, lineCount: 5 })).toEqual({
      title: 'Read file',
      subject: 'src/app.ts (lines 10–14)',
    });
    expect(labelToolCall('search_text', { query: 'TODO', path: 'src' })).toEqual({ title: 'Searched', subject: '“TODO” in src' });
    expect(labelToolCall('list_directory', {})).toEqual({ title: 'Listed folder', subject: null });
    expect(labelToolCall('run_tests', { suite: 'unit' })).toEqual({ title: 'Run tests', subject: 'suite: unit' });
  });

  it('keeps a summary to one short line', () => {
    expect(summarizeArguments({ path: `a/${'b'.repeat(300)}` })?.length).toBeLessThanOrEqual(120);
    expect(summarizeArguments('{"broken json')).toBe('{"broken json');
  });
});
