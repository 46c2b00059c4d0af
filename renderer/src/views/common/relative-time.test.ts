import { describe, expect, it } from 'vitest';
import { formatAge } from './relative-time.js';

describe('thread ages in the sidebar', () => {
  it('gives compact ages, then dates', () => {
    const now = Date.UTC(2026, 5, 15, 12, 0, 0);
    const ago = (seconds: number) => Math.floor(now / 1000) - seconds;
    expect(formatAge(ago(5), now)).toBe('now');
    expect(formatAge(ago(-30), now)).toBe('now');
    expect(formatAge(ago(12 * 60), now)).toBe('12m');
    expect(formatAge(ago(3 * 3600), now)).toBe('3h');
    expect(formatAge(ago(2 * 86_400), now)).toBe('2d');
    expect(formatAge(ago(30 * 86_400), now)).not.toMatch(/^\d+[mhd]$/);
  });
});
