import { describe, expect, it } from 'vitest';
import { lastRewrite, logLineText } from './log-text.js';

describe('what a log line shows', () => {
  it('keeps the last rewrite of a progress bar, with the colours it was drawn in', () => {
    expect(logLineText('10%\r50%\r100% done')).toBe('100% done');
    expect(lastRewrite('\u001b[32m10%\r50%')).toBe('\u001b[32m50%');
    // A rewrite that only clears the line shows nothing new: the last one that shows text stays.
    expect(logLineText('downloading 40%\r\u001b[K')).toBe('downloading 40%');
  });

  it('does not take a CRLF line ending for a rewrite', () => {
    expect(lastRewrite('plain line\r')).toBe('plain line');
    expect(logLineText('a\rb\r')).toBe('b');
  });

  it('drops escapes and controls it does not draw, and keeps tabs', () => {
    expect(logLineText('\u001b[1;31merror\u001b[0m:\tx\u0007')).toBe('error:\tx');
    expect(logLineText('\u001b]8;;https://example.test\u001b\\link\u001b]8;;\u001b\\')).toBe('link');
    expect(logLineText('cut off \u001b[3')).toBe('cut off [3');
  });
});
