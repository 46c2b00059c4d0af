import { diffLines, type DiffLine } from './file-diff.js';

/** One row of a side-by-side diff: the old line on the left, the new on the right (either may be empty). */
export interface SplitRow {
  readonly kind: 'hunk' | 'context' | 'changed';
  readonly left: DiffLine | null;
  readonly right: DiffLine | null;
}

/** The lines of one file's `git diff` (its header dropped; numbered from each hunk header). */
export function gitDiffLines(path: string, diff: string): DiffLine[] {
  const firstHunk = diff.search(/^@@ /m);
  if (firstHunk < 0) return [];
  const body = diff.slice(firstHunk).replace(/^\\ No newline at end of file\n?/gm, '');
  return diffLines({ path, kind: { type: 'update', move_path: null }, diff: body });
}

/** Each hunk of one file's `git diff` as git printed it (from its `@@` line to the next): what `thread/changes/revert {hunks}` takes. */
export function gitDiffHunks(diff: string): string[] {
  const firstHunk = diff.search(/^@@ /m);
  if (firstHunk < 0) return [];
  return diff.slice(firstHunk).split(/^(?=@@ )/m);
}

/** Pairs removed lines with the added lines that replace them, as a side-by-side view shows them. */
export function splitRows(lines: readonly DiffLine[]): SplitRow[] {
  const rows: SplitRow[] = [];
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    if (line.kind === 'hunk' || line.kind === 'context') {
      rows.push({ kind: line.kind, left: line, right: line });
      i++;
      continue;
    }
    const removed: DiffLine[] = [];
    const added: DiffLine[] = [];
    while (i < lines.length && lines[i]!.kind === 'removed') removed.push(lines[i++]!);
    while (i < lines.length && lines[i]!.kind === 'added') added.push(lines[i++]!);
    for (let n = 0; n < Math.max(removed.length, added.length); n++) {
      rows.push({ kind: 'changed', left: removed[n] ?? null, right: added[n] ?? null });
    }
  }
  return rows;
}

/** The highlighter's language for a file name (its extension), or null. */
export function languageOfPath(path: string): string | null {
  const name = path.split('/').pop() ?? path;
  if (/^(Makefile|GNUmakefile)$/.test(name)) return 'makefile';
  if (name === 'Dockerfile') return 'dockerfile';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : null;
}
