import { describe, expect, it } from 'vitest';
import { FOLD_CHARS, FOLD_LINES, foldLongText } from './long-text.js';

describe('folding long user messages', () => {
  it('leaves a short message whole', () => {
    expect(foldLongText('Summarise this project')).toBeNull();
    expect(foldLongText(Array.from({ length: FOLD_LINES }, (_, i) => `line ${i}`).join('\n'))).toBeNull();
  });

  it('shows the first lines of a long one and counts them all', () => {
    const text = Array.from({ length: 2_600 }, (_, i) => `line ${i}`).join('\n');
    const folded = foldLongText(text);
    expect(folded?.totalLines).toBe(2_600);
    expect(folded?.head.split('\n')).toHaveLength(FOLD_LINES);
  });

  it('cuts one very long line by characters', () => {
    const folded = foldLongText('x'.repeat(200_000));
    expect(folded?.head.length).toBe(FOLD_CHARS);
    expect(folded?.totalLines).toBe(1);
  });
});
