import { describe, expect, it } from 'vitest';
import { formatPattern, parsePatternText } from './rule-pattern.js';

describe('rule pattern text', () => {
  it('reads words and |-alternatives, and writes them back the same way', () => {
    expect(parsePatternText('  git   push|fetch origin ')).toEqual(['git', ['push', 'fetch'], 'origin']);
    expect(formatPattern(['git', ['push', 'fetch'], 'origin'])).toBe('git push|fetch origin');
    expect(parsePatternText('')).toEqual([]);
  });

  it('keeps an empty alternative for the runtime to refuse with its own words', () => {
    expect(parsePatternText('git push|')).toEqual(['git', ['push', '']]);
  });
});
