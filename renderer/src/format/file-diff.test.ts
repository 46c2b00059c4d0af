import { describe, expect, it } from 'vitest';
import { diffLines, diffStat, displayPath, patchTargets } from './file-diff.js';

describe('file change diffs', () => {
  it('numbers an update from its hunk headers', () => {
    const change = { path: '/p/a.txt', kind: { type: 'update' as const, move_path: null }, diff: '@@ -4,3 +4,3 @@\n one\n-two\n+TWO\n three\n' };
    expect(diffLines(change)).toEqual([
      { kind: 'hunk', text: '@@ -4,3 +4,3 @@', oldNumber: null, newNumber: null },
      { kind: 'context', text: 'one', oldNumber: 4, newNumber: 4 },
      { kind: 'removed', text: 'two', oldNumber: 5, newNumber: null },
      { kind: 'added', text: 'TWO', oldNumber: null, newNumber: 5 },
      { kind: 'context', text: 'three', oldNumber: 6, newNumber: 6 },
    ]);
    expect(diffStat(change)).toEqual({ added: 1, removed: 1 });
  });

  it('shows an added file as additions and a deleted one as removals', () => {
    expect(diffStat({ path: '/p/n.txt', kind: { type: 'add' }, diff: 'a\nb\n' })).toEqual({ added: 2, removed: 0 });
    expect(diffLines({ path: '/p/o.txt', kind: { type: 'delete' }, diff: 'gone\n' })).toEqual([{ kind: 'removed', text: 'gone', oldNumber: 1, newNumber: null }]);
    expect(diffLines({ path: '/p/e.txt', kind: { type: 'add' }, diff: '' })).toEqual([]);
  });

  it('names the files a patch targets, from its arguments', () => {
    expect(patchTargets({ input: '*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** Delete File: b/c.txt\n*** End Patch\n' })).toEqual(['a.txt', 'b/c.txt']);
    expect(patchTargets('not json')).toEqual([]);
  });

  it('shows paths inside the thread folder relative to it', () => {
    expect(displayPath('/home/me/p/src/a.ts', '/home/me/p')).toBe('src/a.ts');
    expect(displayPath('/etc/hosts', '/home/me/p')).toBe('/etc/hosts');
    expect(displayPath('/home/me/pq/a.ts', '/home/me/p')).toBe('/home/me/pq/a.ts');
  });
});
