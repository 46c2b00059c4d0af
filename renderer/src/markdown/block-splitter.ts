/**
 * Splits Markdown into top-level blocks that render the same one by one as
 * together, so a streaming reply re-renders only its last block. A split is
 * made only where it is provably safe: after a blank line, outside fenced
 * code, before an unindented line that cannot continue the block (a list item
 * after a list would merge into it), decided only once enough of that line
 * has arrived. Anything doubtful stays in one block: fewer splits are always
 * correct.
 */

/** Where blocks start, from the scan's starting point on. */
export interface BlockScan {
  /** Offsets into the source; the first is where the scan began. */
  readonly starts: readonly number[];
  /** Link reference definitions apply document-wide, so a document with one must be rendered whole. */
  readonly hasReferences: boolean;
}

/** An opening code fence: its character, length and indentation. */
export interface Fence {
  readonly char: string;
  readonly length: number;
  readonly indent: number;
}

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;
const LIST_MARKER = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const REFERENCE = /^ {0,3}\[[^\]]+\]:/;

/**
 * Finds block starts in `source` from offset `from`, which must itself be a
 * block start (0, or a start an earlier scan of a prefix returned): a block
 * boundary always leaves the scanner in its initial state, so a growing
 * reply is scanned from its last block on, never from the top.
 */
export function scanBlocks(source: string, from = 0): BlockScan {
  const starts = [from];
  let fence: Fence | null = null;
  let blockHasList = false;
  let afterBlank = false;
  let offset = from;

  while (offset < source.length) {
    const newline = source.indexOf('\n', offset);
    const complete = newline !== -1;
    const end = complete ? newline : source.length;
    const line = source.slice(offset, end);
    const lineStart = offset;
    offset = complete ? newline + 1 : source.length;

    if (fence) {
      if (complete && closesFence(line, fence)) fence = null;
      continue;
    }
    if (line.trim() === '') {
      afterBlank = true;
      continue;
    }
    if (REFERENCE.test(line)) return { starts: [from], hasReferences: true };
    if (afterBlank && startsNewBlock(line, complete, blockHasList)) {
      starts.push(lineStart);
      blockHasList = false;
    }
    afterBlank = false;
    if (LIST_MARKER.test(line)) blockHasList = true;
    fence = opensFence(line);
  }
  return { starts, hasReferences: false };
}

/** Whether a non-blank line after a blank one begins a new block; a line still arriving may not say yet. */
function startsNewBlock(line: string, complete: boolean, blockHasList: boolean): boolean {
  if (/^\s/.test(line)) return false;
  if (!blockHasList) return true;
  // After a list, a list item would join it; a line that might still become one waits for its end.
  if (!/^[-*+0-9]/.test(line)) return true;
  return complete && !LIST_MARKER.test(line);
}

export function opensFence(line: string): Fence | null {
  const match = FENCE.exec(line);
  if (!match) return null;
  const [, indent = '', marker = '', info = ''] = match;
  const char = marker[0] ?? '`';
  if (char === '`' && info.includes('`')) return null;
  return { char, length: marker.length, indent: indent.length };
}

export function closesFence(line: string, fence: Fence): boolean {
  const match = FENCE.exec(line);
  if (!match) return false;
  const [, indent = '', marker = '', rest = ''] = match;
  return marker[0] === fence.char && marker.length >= fence.length && rest.trim() === '' && indent.length < fence.indent + 4;
}
