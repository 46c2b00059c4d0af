import fs from 'node:fs';
import { logLineText } from '../../../shared/log-text.js';

/** One offset kept per this many lines: 1,000,000 lines cost ~4,000 numbers, and a read skips at most 255 lines. */
export const LINES_PER_CHECKPOINT = 256;
/** Bytes read from disk at a time, while indexing, reading and searching. */
const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

export interface LineRange {
  readonly lines: string[];
  /** Numbers of the lines cut at the per-line byte cap. */
  readonly clipped: number[];
}

export interface SearchResult {
  readonly lines: number[];
  readonly searchedTo: number;
  readonly truncated: boolean;
}

/** Where a UTF-8 text cut at `end` stays whole: before a continuation byte's lead. */
function charBoundary(buffer: Buffer, start: number, end: number): number {
  let cut = end;
  while (cut > start && (buffer[cut]! & 0xc0) === 0x80) cut -= 1;
  return cut;
}

/** What a line may hold that it does not show as it is: escapes, carriage returns (not a CRLF's), other controls. */
const NOT_AS_SHOWN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u009b]|\r(?!\n)/g;

/**
 * The lines of `text` (whole lines, each ending in a newline; the first is
 * line `firstLine`) whose shown text contains `needle` (lower case). Found in
 * the raw text first; lines holding escapes or controls are judged by what
 * they show instead, so most output is searched without splitting it into lines.
 */
export function matchesIn(text: string, firstLine: number, needle: string): number[] {
  const lower = text.toLowerCase();
  const raw: number[] = [];
  let line = firstLine;
  let cursor = 0;
  /** Moves `line` to the line holding position `at` (never backwards). */
  const lineAt = (at: number) => {
    for (let nl = lower.indexOf('\n', cursor); nl !== -1 && nl < at; nl = lower.indexOf('\n', cursor)) {
      line += 1;
      cursor = nl + 1;
    }
    return line;
  };
  for (let at = lower.indexOf(needle); at !== -1; ) {
    raw.push(lineAt(at));
    const end = lower.indexOf('\n', at);
    if (end === -1) break;
    at = lower.indexOf(needle, end + 1);
  }
  NOT_AS_SHOWN.lastIndex = 0;
  if (!NOT_AS_SHOWN.test(text)) return raw;
  // Lines with escapes or controls: judged by what they show, whatever the raw text matched.
  const judged = new Map<number, boolean>();
  line = firstLine;
  cursor = 0;
  NOT_AS_SHOWN.lastIndex = 0;
  for (let found = NOT_AS_SHOWN.exec(text); found !== null; found = NOT_AS_SHOWN.exec(text)) {
    const number = lineAt(found.index);
    const end = text.indexOf('\n', found.index);
    judged.set(number, logLineText(text.slice(cursor, end)).toLowerCase().includes(needle));
    NOT_AS_SHOWN.lastIndex = end + 1;
  }
  const out = raw.filter((n) => !judged.has(n));
  for (const [number, matches] of judged) if (matches) out.push(number);
  return out.sort((x, y) => x - y);
}

/**
 * A line index of one run's log, which only ever grows: the byte offset of
 * every LINES_PER_CHECKPOINT-th line, brought up to date from where it
 * stopped whenever the log is read (so a live log costs only its new bytes,
 * and an old one is indexed once, at its first read). Reads never block the
 * event loop for long: the file is read a megabyte at a time, asynchronously.
 */
export class LogLineIndex {
  /** Byte offset of line k × LINES_PER_CHECKPOINT. */
  private readonly checkpoints: number[] = [0];
  /** Lines ended by a newline, all before `completeBytes`. */
  private completeLines = 0;
  /** Just past the last newline indexed. */
  private completeBytes = 0;
  /** Bytes looked at (the unfinished last line's bytes need not be looked at twice). */
  private scannedBytes = 0;
  private catchingUp: Promise<void> | null = null;

  constructor(readonly file: string) {}

  /** Lines of a log of `size` bytes (indexed up to there): an unfinished last line counts. */
  lineCount(size: number): number {
    return this.completeLines + (size > this.completeBytes ? 1 : 0);
  }

  /** Lines ended by a newline so far. */
  get complete(): number {
    return this.completeLines;
  }

  /** Indexes the log up to `size` bytes (its size now); concurrent callers share the work. */
  async catchUp(size: number): Promise<void> {
    if (size < this.scannedBytes) throw new Error(`the log ${this.file} shrank from ${this.scannedBytes} to ${size} bytes`);
    while (this.scannedBytes < size) {
      this.catchingUp ??= this.scan(size).finally(() => {
        this.catchingUp = null;
      });
      await this.catchingUp;
    }
  }

  private async scan(size: number): Promise<void> {
    const handle = await fs.promises.open(this.file, 'r');
    try {
      const buffer = Buffer.alloc(CHUNK_BYTES);
      while (this.scannedBytes < size) {
        const at = this.scannedBytes;
        const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK_BYTES, size - at), at);
        if (bytesRead === 0) break;
        let from = 0;
        for (;;) {
          const newline = buffer.indexOf(NEWLINE, from);
          if (newline === -1 || newline >= bytesRead) break;
          this.completeLines += 1;
          this.completeBytes = at + newline + 1;
          if (this.completeLines % LINES_PER_CHECKPOINT === 0) this.checkpoints.push(this.completeBytes);
          from = newline + 1;
        }
        this.scannedBytes = at + bytesRead;
      }
    } finally {
      await handle.close();
    }
  }

  /**
   * Lines [from, from + count) of a log indexed up to `size`, raw (escapes
   * kept, newline removed), each cut at `lineMaxBytes`, stopping early
   * once `budgetBytes` are taken (always at least one line).
   */
  async read(from: number, count: number, size: number, lineMaxBytes: number, budgetBytes: number): Promise<LineRange> {
    const lines: string[] = [];
    const clipped: number[] = [];
    const total = this.lineCount(size);
    if (from >= total) return { lines, clipped };
    const want = Math.min(count, total - from);
    await this.walk(from, size, (buffer, start, end, line, _fileOffset, complete) => {
      // A CRLF line ending (a terminal's) is not part of the line.
      let cut = complete && end > start && buffer[end - 1] === 0x0d ? end - 1 : end;
      if (cut - start > lineMaxBytes) {
        cut = charBoundary(buffer, start, start + lineMaxBytes);
        clipped.push(line);
      }
      lines.push(buffer.toString('utf8', start, cut));
      budgetBytes -= cut - start;
      return lines.length < want && budgetBytes > 0;
    });
    return { lines, clipped };
  }

  /**
   * The lines in [from, to) whose shown text (see shared/log-text) contains
   * `query`, ignoring case; complete lines only (an unfinished line is searched
   * once it ends), at most `maxMatches`.
   */
  async search(query: string, from: number, maxMatches: number, size: number, to = Infinity): Promise<SearchResult> {
    const needle = query.toLowerCase();
    const matches: number[] = [];
    const end = Math.min(this.completeLines, to);
    if (from >= end) return { lines: matches, searchedTo: Math.max(from, end), truncated: false };
    let searchedTo = end;
    let truncated = false;
    const endByte = end === this.completeLines ? Math.min(size, this.completeBytes) : await this.offsetOfLine(end, size);
    // A chunk is searched as it is, then its lines with escapes or controls one by one, as they show.
    await this.walkChunks(from, endByte, (text, firstLine) => {
      matches.push(...matchesIn(text, firstLine, needle));
      if (matches.length >= maxMatches) {
        matches.length = maxMatches;
        truncated = true;
        searchedTo = matches[matches.length - 1]! + 1;
        return false;
      }
      return true;
    });
    return { lines: matches, searchedTo, truncated };
  }

  /** Calls `visit` with each line from `from` on (its bytes in `buffer`, where it starts in the file, whether a newline ends it), while it returns true. */
  private async walk(
    from: number,
    size: number,
    visit: (buffer: Buffer, start: number, end: number, line: number, fileOffset: number, complete: boolean) => boolean,
  ): Promise<void> {
    const checkpoint = Math.min(Math.floor(from / LINES_PER_CHECKPOINT), this.checkpoints.length - 1);
    let line = checkpoint * LINES_PER_CHECKPOINT;
    let offset = this.checkpoints[checkpoint]!;
    const handle = await fs.promises.open(this.file, 'r');
    try {
      let buffer = Buffer.alloc(CHUNK_BYTES);
      while (offset < size) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, size - offset), offset);
        if (bytesRead === 0) return;
        let start = 0;
        for (;;) {
          const newline = buffer.indexOf(NEWLINE, start);
          const ends = newline !== -1 && newline < bytesRead;
          if (!ends && offset + bytesRead < size) {
            // A line longer than the buffer: read it again from its start, into a larger buffer when it is the only one.
            if (start === 0) buffer = Buffer.alloc(buffer.length * 2);
            break;
          }
          const end = ends ? newline : bytesRead;
          if (line >= from && !visit(buffer, start, end, line, offset + start, ends)) return;
          line += 1;
          start = end + 1;
          if (!ends) return;
        }
        offset += start;
      }
    } finally {
      await handle.close();
    }
  }

  /** Where line `line` starts in a log of `size` bytes (its end when there is no such line yet). */
  private async offsetOfLine(line: number, size: number): Promise<number> {
    if (line % LINES_PER_CHECKPOINT === 0 && line / LINES_PER_CHECKPOINT < this.checkpoints.length) return this.checkpoints[line / LINES_PER_CHECKPOINT]!;
    let found = size;
    await this.walk(line, size, (_buffer, _start, _end, _line, fileOffset) => {
      found = fileOffset;
      return false;
    });
    return found;
  }

  /** Calls `visit` with runs of whole lines from `from` up to byte `end` (a line boundary), as text ending in a newline, while it returns true. */
  private async walkChunks(from: number, end: number, visit: (text: string, firstLine: number) => boolean): Promise<void> {
    let line = from;
    let offset = await this.offsetOfLine(from, end);
    const handle = await fs.promises.open(this.file, 'r');
    try {
      let buffer = Buffer.alloc(CHUNK_BYTES);
      while (offset < end) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, end - offset), offset);
        if (bytesRead === 0) return;
        const last = buffer.lastIndexOf(NEWLINE, bytesRead - 1);
        if (last === -1) {
          // One line longer than the buffer.
          buffer = Buffer.alloc(buffer.length * 2);
          continue;
        }
        if (!visit(buffer.toString('utf8', 0, last + 1), line)) return;
        for (let at = buffer.indexOf(NEWLINE); at !== -1 && at <= last; at = buffer.indexOf(NEWLINE, at + 1)) line += 1;
        offset += last + 1;
      }
    } finally {
      await handle.close();
    }
  }
}
