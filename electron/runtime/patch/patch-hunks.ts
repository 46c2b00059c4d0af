import type { UpdateChunk } from './patch-parser.js';

/** One place where lines of the original file are replaced. */
export interface Replacement {
  readonly start: number;
  readonly oldLength: number;
  readonly newLines: readonly string[];
}

export class HunkMismatchError extends Error {
  constructor(
    readonly hunkIndex: number,
    readonly expected: readonly string[],
    message: string,
  ) {
    super(message);
    this.name = 'HunkMismatchError';
  }
}

/**
 * Finds where each chunk applies, in order, as Codex's apply_patch does: the
 * `@@` context line first, then the old lines — exactly, then ignoring
 * trailing whitespace, then ignoring surrounding whitespace, then with
 * typographic punctuation folded to ASCII. Throws for the first chunk that
 * does not match (1-based index).
 */
export function locateChunks(lines: readonly string[], chunks: readonly UpdateChunk[]): Replacement[] {
  const replacements: Replacement[] = [];
  let cursor = 0;
  chunks.forEach((chunk, position) => {
    const hunkIndex = position + 1;
    if (chunk.changeContext !== null) {
      const found = seekSequence(lines, [chunk.changeContext], cursor, false);
      if (found === null) throw new HunkMismatchError(hunkIndex, [chunk.changeContext], `context line '${chunk.changeContext}' not found`);
      cursor = found + 1;
    }
    if (chunk.oldLines.length === 0) {
      // A pure addition goes at the end of the file.
      replacements.push({ start: lines.length, oldLength: 0, newLines: chunk.newLines });
      return;
    }
    let pattern = chunk.oldLines;
    let newLines = chunk.newLines;
    let found = seekSequence(lines, pattern, cursor, chunk.isEndOfFile);
    if (found === null && pattern[pattern.length - 1] === '') {
      // A trailing empty context line is often just the blank line before the next file header.
      pattern = pattern.slice(0, -1);
      if (newLines[newLines.length - 1] === '') newLines = newLines.slice(0, -1);
      found = seekSequence(lines, pattern, cursor, chunk.isEndOfFile);
    }
    if (found === null) throw new HunkMismatchError(hunkIndex, chunk.oldLines, 'the expected lines were not found');
    replacements.push({ start: found, oldLength: pattern.length, newLines });
    cursor = found + pattern.length;
  });
  return replacements.sort((a, b) => a.start - b.start);
}

export function applyReplacements(lines: readonly string[], replacements: readonly Replacement[]): string[] {
  const result = [...lines];
  // From the end so earlier indices stay valid.
  for (const replacement of [...replacements].reverse()) {
    result.splice(replacement.start, replacement.oldLength, ...replacement.newLines);
  }
  return result;
}

const NORMALIZERS: readonly ((line: string) => string)[] = [
  (line) => line,
  (line) => line.trimEnd(),
  (line) => line.trim(),
  (line) => foldPunctuation(line.trim()),
];

function seekSequence(lines: readonly string[], pattern: readonly string[], start: number, endOfFile: boolean): number | null {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return null;
  const from = endOfFile ? lines.length - pattern.length : start;
  for (const normalize of NORMALIZERS) {
    const wanted = pattern.map(normalize);
    for (let at = from; at <= lines.length - pattern.length; at += 1) {
      if (wanted.every((line, offset) => normalize(lines[at + offset]!) === line)) return at;
    }
  }
  return null;
}

/** Dashes, quotes and odd spaces that models often write in place of ASCII. */
function foldPunctuation(line: string): string {
  return line
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\u2018\u2019\u201A\u201B]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F]/g, '"')
    .replace(/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, ' ');
}

/** Codex-style unified diff hunks (no file header) from the replacements, with 3 lines of context. */
export function unifiedDiff(oldLines: readonly string[], replacements: readonly Replacement[], context = 3): string {
  const changed = replacements.map((replacement) => trimUnchanged(oldLines, replacement)).filter((replacement) => replacement.oldLength > 0 || replacement.newLines.length > 0);
  if (changed.length === 0) return '';
  const groups: Replacement[][] = [];
  for (const replacement of changed) {
    const group = groups[groups.length - 1];
    const previous = group?.[group.length - 1];
    if (group && previous && replacement.start - (previous.start + previous.oldLength) <= context * 2) group.push(replacement);
    else groups.push([replacement]);
  }
  let out = '';
  let shift = 0; // new line number minus old line number before the current group
  for (const group of groups) {
    const first = group[0]!;
    const last = group[group.length - 1]!;
    const oldStart = Math.max(0, first.start - context);
    const oldEnd = Math.min(oldLines.length, last.start + last.oldLength + context);
    const body: string[] = [];
    let cursor = oldStart;
    let groupShift = 0;
    for (const replacement of group) {
      for (; cursor < replacement.start; cursor += 1) body.push(` ${oldLines[cursor]}`);
      for (let index = 0; index < replacement.oldLength; index += 1) body.push(`-${oldLines[replacement.start + index]}`);
      for (const line of replacement.newLines) body.push(`+${line}`);
      cursor = replacement.start + replacement.oldLength;
      groupShift += replacement.newLines.length - replacement.oldLength;
    }
    for (; cursor < oldEnd; cursor += 1) body.push(` ${oldLines[cursor]}`);
    const oldCount = oldEnd - oldStart;
    const newCount = oldCount + groupShift;
    const oldFrom = oldCount === 0 ? oldStart : oldStart + 1;
    const newFrom = newCount === 0 ? oldStart + shift : oldStart + shift + 1;
    out += `@@ -${oldFrom},${oldCount} +${newFrom},${newCount} @@\n${body.join('\n')}\n`;
    shift += groupShift;
  }
  return out;
}

/** Context lines a hunk repeats unchanged at its edges are context in the diff, not -/+ pairs. */
function trimUnchanged(oldLines: readonly string[], replacement: Replacement): Replacement {
  let start = replacement.start;
  let oldLength = replacement.oldLength;
  let newLines = replacement.newLines;
  while (oldLength > 0 && newLines.length > 0 && oldLines[start] === newLines[0]) {
    start += 1;
    oldLength -= 1;
    newLines = newLines.slice(1);
  }
  while (oldLength > 0 && newLines.length > 0 && oldLines[start + oldLength - 1] === newLines[newLines.length - 1]) {
    oldLength -= 1;
    newLines = newLines.slice(0, -1);
  }
  return { start, oldLength, newLines };
}
