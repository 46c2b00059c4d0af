import { describe, expect, it } from 'vitest';
import { gitDiffLines, languageOfPath, splitRows } from './changed-file-diff.js';

const DIFF = [
  'diff --git a/greeting.txt b/greeting.txt',
  'index 4cb29ea..f8b8b3d 100644',
  '--- a/greeting.txt',
  '+++ b/greeting.txt',
  '@@ -1,3 +1,4 @@',
  ' one',
  '-two',
  '+TWO',
  '+2',
  ' three',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('a changed file as drawn', () => {
  it('numbers the lines of a git diff without its header', () => {
    const lines = gitDiffLines('greeting.txt', DIFF);
    expect(lines.map((l) => [l.kind, l.text, l.oldNumber, l.newNumber])).toEqual([
      ['hunk', '@@ -1,3 +1,4 @@', null, null],
      ['context', 'one', 1, 1],
      ['removed', 'two', 2, null],
      ['added', 'TWO', null, 2],
      ['added', '2', null, 3],
      ['context', 'three', 3, 4],
    ]);
  });

  it('pairs removed and added lines side by side', () => {
    const rows = splitRows(gitDiffLines('greeting.txt', DIFF));
    expect(rows.map((r) => [r.kind, r.left?.text ?? null, r.right?.text ?? null])).toEqual([
      ['hunk', '@@ -1,3 +1,4 @@', '@@ -1,3 +1,4 @@'],
      ['context', 'one', 'one'],
      ['changed', 'two', 'TWO'],
      ['changed', null, '2'],
      ['context', 'three', 'three'],
    ]);
  });

  it('has no lines for a binary file, and knows languages by extension', () => {
    expect(gitDiffLines('a.png', 'diff --git a/a.png b/a.png\nBinary files a/a.png and b/a.png differ\n')).toEqual([]);
    expect([languageOfPath('src/app.tsx'), languageOfPath('Makefile'), languageOfPath('README')]).toEqual(['tsx', 'makefile', null]);
  });
});
