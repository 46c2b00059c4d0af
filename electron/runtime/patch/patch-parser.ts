/**
 * Parses Codex's apply_patch format:
 *
 *   *** Begin Patch
 *   *** Add File: path        (followed by `+line`s)
 *   *** Delete File: path
 *   *** Update File: path
 *   *** Move to: new/path     (optional, right after Update File)
 *   @@ optional context line  (then ` context`, `-removed`, `+added` lines)
 *   *** End of File           (optional: the hunk must match at the end of the file)
 *   *** End Patch
 *
 * Errors carry the 1-based line of the patch text they are about.
 */

export interface UpdateChunk {
  /** The `@@ text` line: the hunk applies after the first line equal to it. */
  readonly changeContext: string | null;
  readonly oldLines: readonly string[];
  readonly newLines: readonly string[];
  readonly isEndOfFile: boolean;
  /** Line of the patch where this chunk starts. */
  readonly line: number;
}

export type PatchHunk =
  | { readonly kind: 'add'; readonly path: string; readonly contents: string; readonly line: number }
  | { readonly kind: 'delete'; readonly path: string; readonly line: number }
  | { readonly kind: 'update'; readonly path: string; readonly movePath: string | null; readonly chunks: readonly UpdateChunk[]; readonly line: number };

export class PatchParseError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`invalid patch at line ${line}: ${message}`);
    this.name = 'PatchParseError';
  }
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const END_OF_FILE = '*** End of File';

export function parsePatch(text: string): PatchHunk[] {
  // Lines keep their numbers; a CRLF patch is read like an LF one.
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
  let first = 0;
  while (first < lines.length && lines[first]!.trim() === '') first += 1;
  let last = lines.length - 1;
  while (last > first && lines[last]!.trim() === '') last -= 1;
  if (lines[first]?.trim() !== BEGIN) throw new PatchParseError(first + 1, `the first line of the patch must be '${BEGIN}'`);
  if (last === first || lines[last]!.trim() !== END) throw new PatchParseError(last + 1, `the last line of the patch must be '${END}'`);

  const hunks: PatchHunk[] = [];
  let index = first + 1;
  while (index < last) {
    const line = lines[index]!;
    const lineNumber = index + 1;
    if (line.trim() === '') {
      index += 1;
    } else if (line.startsWith(ADD)) {
      const path = requirePath(line.slice(ADD.length), lineNumber);
      index += 1;
      let contents = '';
      while (index < last && lines[index]!.startsWith('+')) contents += `${lines[index++]!.slice(1)}\n`;
      hunks.push({ kind: 'add', path, contents, line: lineNumber });
    } else if (line.startsWith(DELETE)) {
      hunks.push({ kind: 'delete', path: requirePath(line.slice(DELETE.length), lineNumber), line: lineNumber });
      index += 1;
    } else if (line.startsWith(UPDATE)) {
      const path = requirePath(line.slice(UPDATE.length), lineNumber);
      index += 1;
      let movePath: string | null = null;
      if (index < last && lines[index]!.startsWith(MOVE)) movePath = requirePath(lines[index++]!.slice(MOVE.length), index);
      const chunks: UpdateChunk[] = [];
      while (index < last) {
        if (lines[index]!.trim() === '') {
          index += 1;
          continue;
        }
        if (lines[index]!.startsWith('***')) break;
        const parsed = parseChunk(lines, index, last, chunks.length === 0);
        chunks.push(parsed.chunk);
        index = parsed.next;
      }
      if (chunks.length === 0) throw new PatchParseError(lineNumber, `the update of '${path}' has no hunks`);
      hunks.push({ kind: 'update', path, movePath, chunks, line: lineNumber });
    } else {
      throw new PatchParseError(
        lineNumber,
        `'${line}' is not a file operation; expected '${ADD}', '${DELETE}' or '${UPDATE}' followed by a path`,
      );
    }
  }
  if (hunks.length === 0) throw new PatchParseError(first + 1, 'the patch changes no file');
  return hunks;
}

function requirePath(raw: string, line: number): string {
  const path = raw.trim();
  if (path === '') throw new PatchParseError(line, 'a file operation needs a path');
  return path;
}

function parseChunk(lines: readonly string[], start: number, end: number, firstChunk: boolean): { chunk: UpdateChunk; next: number } {
  let index = start;
  let changeContext: string | null = null;
  const header = lines[index]!;
  if (header === '@@') {
    index += 1;
  } else if (header.startsWith('@@ ')) {
    changeContext = header.slice(3);
    index += 1;
  } else if (!firstChunk) {
    throw new PatchParseError(start + 1, `expected a hunk starting with '@@', got '${header}'`);
  }
  const oldLines: string[] = [];
  const newLines: string[] = [];
  let isEndOfFile = false;
  let bodyLines = 0;
  while (index < end) {
    const line = lines[index]!;
    if (line === END_OF_FILE) {
      if (bodyLines === 0) break;
      isEndOfFile = true;
      index += 1;
      break;
    }
    const marker = line[0];
    if (marker === undefined) {
      // An empty line inside a hunk is an empty context line (editors strip the lone space).
      oldLines.push('');
      newLines.push('');
    } else if (marker === ' ') {
      oldLines.push(line.slice(1));
      newLines.push(line.slice(1));
    } else if (marker === '-') {
      oldLines.push(line.slice(1));
    } else if (marker === '+') {
      newLines.push(line.slice(1));
    } else {
      if (bodyLines === 0) {
        throw new PatchParseError(index + 1, `unexpected line '${line}' in a hunk; every line starts with ' ' (context), '+' (added) or '-' (removed)`);
      }
      break;
    }
    bodyLines += 1;
    index += 1;
  }
  if (bodyLines === 0) throw new PatchParseError(start + 1, 'a hunk has no lines');
  return { chunk: { changeContext, oldLines, newLines, isEndOfFile, line: start + 1 }, next: index };
}
