import { describe, expect, it } from 'vitest';
import { PatchParseError, parsePatch } from './patch-parser.js';

function parseError(text: string): PatchParseError {
  try {
    parsePatch(text);
  } catch (error) {
    expect(error).toBeInstanceOf(PatchParseError);
    return error as PatchParseError;
  }
  throw new Error('parsed but should not have');
}

describe('parsePatch', () => {
  it('reads every operation, chunk headers and end-of-file markers', () => {
    const hunks = parsePatch([
      '*** Begin Patch',
      '*** Add File: a.txt',
      '+hello',
      '+',
      '*** Delete File: b.txt',
      '*** Update File: c.txt',
      '*** Move to: d.txt',
      ' first chunk without header',
      '-old',
      '+new',
      '@@ def f():',
      '',
      '-x',
      '*** End of File',
      '*** End Patch',
    ].join('\r\n'));
    expect(hunks).toEqual([
      { kind: 'add', path: 'a.txt', contents: 'hello\n\n', line: 2 },
      { kind: 'delete', path: 'b.txt', line: 5 },
      {
        kind: 'update', path: 'c.txt', movePath: 'd.txt', line: 6,
        chunks: [
          { changeContext: null, oldLines: ['first chunk without header', 'old'], newLines: ['first chunk without header', 'new'], isEndOfFile: false, line: 8 },
          { changeContext: 'def f():', oldLines: ['', 'x'], newLines: [''], isEndOfFile: true, line: 11 },
        ],
      },
    ]);
  });

  it('names the line of each mistake', () => {
    expect(parseError('*** Add File: a\n+x\n*** End Patch').line).toBe(1);
    expect(parseError('*** Begin Patch\n*** Add File: a\n+x').line).toBe(3);
    expect(parseError('*** Begin Patch\n*** Frobnicate: a\n*** End Patch').message).toMatch(/line 2: '\*\*\* Frobnicate: a' is not a file operation/);
    expect(parseError('*** Begin Patch\n*** Update File: a\n*** End Patch').message).toMatch(/line 2: the update of 'a' has no hunks/);
    expect(parseError('*** Begin Patch\n*** Update File: a\n@@\n-x\nnot a diff line\n*** End Patch').line).toBe(5);
    expect(parseError('*** Begin Patch\n*** Update File: a\n@@\n*** End Patch').message).toMatch(/has no hunks|has no lines/);
    expect(parseError('*** Begin Patch\n*** Add File:   \n*** End Patch').line).toBe(2);
    expect(parseError('*** Begin Patch\n*** End Patch').message).toMatch(/changes no file/);
  });
});
