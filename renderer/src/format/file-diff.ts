import type { FileUpdateChange } from '../../../shared/protocol/file-change.js';

/** One line of a file change as drawn: its kind and its numbers in the old and new file. */
export interface DiffLine {
  readonly kind: 'hunk' | 'context' | 'added' | 'removed';
  readonly text: string;
  readonly oldNumber: number | null;
  readonly newNumber: number | null;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/**
 * The lines of one `FileUpdateChange`: an added file is all additions, a
 * deleted one all removals, an update its unified hunks (numbered from each
 * `@@ -a,b +c,d @@` header).
 */
export function diffLines(change: FileUpdateChange): DiffLine[] {
  const body = change.diff.endsWith('\n') ? change.diff.slice(0, -1) : change.diff;
  if (body === '') return [];
  const lines = body.split('\n');
  if (change.kind.type === 'add') return lines.map((text, i) => ({ kind: 'added', text, oldNumber: null, newNumber: i + 1 }));
  if (change.kind.type === 'delete') return lines.map((text, i) => ({ kind: 'removed', text, oldNumber: i + 1, newNumber: null }));
  const out: DiffLine[] = [];
  let oldNumber = 1;
  let newNumber = 1;
  for (const line of lines) {
    const header = HUNK_HEADER.exec(line);
    if (header) {
      oldNumber = Number(header[1]);
      newNumber = Number(header[2]);
      out.push({ kind: 'hunk', text: line, oldNumber: null, newNumber: null });
    } else if (line.startsWith('+')) {
      out.push({ kind: 'added', text: line.slice(1), oldNumber: null, newNumber: newNumber++ });
    } else if (line.startsWith('-')) {
      out.push({ kind: 'removed', text: line.slice(1), oldNumber: oldNumber++, newNumber: null });
    } else {
      out.push({ kind: 'context', text: line.startsWith(' ') ? line.slice(1) : line, oldNumber: oldNumber++, newNumber: newNumber++ });
    }
  }
  return out;
}

/** How many lines a change adds and removes. */
export function diffStat(change: FileUpdateChange): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diffLines(change)) {
    if (line.kind === 'added') added += 1;
    else if (line.kind === 'removed') removed += 1;
  }
  return { added, removed };
}

/** A path as the person knows it: relative to the thread's folder when inside it. */
export function displayPath(file: string, folder: string | null | undefined): string {
  if (!folder) return file;
  const root = folder.endsWith('/') ? folder : `${folder}/`;
  return file.startsWith(root) ? file.slice(root.length) : file;
}

const FILE_HEADER = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm;

/** The files a patch names (for a patch that failed before its changes were known). */
export function patchTargets(patchArguments: unknown): string[] {
  const input = typeof patchArguments === 'object' && patchArguments !== null ? (patchArguments as { input?: unknown }).input : patchArguments;
  if (typeof input !== 'string') return [];
  return [...input.matchAll(FILE_HEADER)].map((match) => match[1]!.trim());
}

/** The patch text the model sent, if it sent one. */
export function patchText(patchArguments: unknown): string | null {
  const input = typeof patchArguments === 'object' && patchArguments !== null ? (patchArguments as { input?: unknown }).input : patchArguments;
  return typeof input === 'string' ? input : null;
}
