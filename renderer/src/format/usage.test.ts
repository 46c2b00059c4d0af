import { describe, expect, it } from 'vitest';
import { formatCompact, formatDuration, formatUsage } from './usage.js';

const usage = (total: number, input: number, cached: number) => ({
  totalTokens: total,
  inputTokens: input,
  cachedInputTokens: cached,
  cacheWriteInputTokens: 0,
  outputTokens: total - input,
  reasoningOutputTokens: 0,
});

describe('usage in the turn footer', () => {
  it('shows tokens and the cache hit rate of the input', () => {
    expect(formatUsage(usage(1234, 1242, 820))).toBe('1,234 tokens · 820 cached (66%)');
    expect(formatUsage(usage(1, 1, 0))).toBe('1 token');
    expect(formatUsage(usage(5000, 4000, 0))).toBe('5,000 tokens');
  });

  it('shortens counts and durations for tight places', () => {
    expect(formatCompact(950)).toBe('950');
    expect(formatCompact(12_345)).toBe('12.3k');
    expect(formatCompact(250_000)).toBe('250k');
    expect(formatCompact(1_200_000)).toBe('1.2M');
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(4_200)).toBe('4.2 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
  });
});
