/**
 * The ConEmu / Windows Terminal progress sequence `ESC ] 9 ; 4 ; st ; pr`
 * (terminated by BEL or ESC \), which build tools, winget, systemd and others
 * print. st: 0 hide, 1 normal with percent, 2 error, 3 indeterminate, 4 paused.
 */
export type TerminalProgress =
  | { readonly state: 'hidden'; readonly percent: null }
  | { readonly state: 'normal'; readonly percent: number }
  | { readonly state: 'error'; readonly percent: number | null }
  | { readonly state: 'indeterminate'; readonly percent: null }
  | { readonly state: 'paused'; readonly percent: number | null };

const PREFIX = Buffer.from('\x1b]9;4;');
const BEL = 0x07;
const ESC = 0x1b;
const BACKSLASH = 0x5c;
/** Longer parameters than this are not a progress sequence; stops a stray prefix holding bytes. */
const MAX_PARAMS = 16;

function decode(params: string): TerminalProgress | undefined {
  const match = /^([0-4])(?:;(\d{0,3}))?$/.exec(params);
  if (!match) return undefined;
  const percent = match[2] ? Math.min(100, Number(match[2])) : null;
  switch (match[1]) {
    case '0':
      return { state: 'hidden', percent: null };
    case '1':
      return { state: 'normal', percent: percent ?? 0 };
    case '2':
      return { state: 'error', percent };
    case '3':
      return { state: 'indeterminate', percent: null };
    default:
      return { state: 'paused', percent };
  }
}

/** Finds progress sequences in a byte stream, including ones split across chunks. */
export class TerminalProgressParser {
  /** The unfinished start of a sequence from the previous chunk (a few bytes at most). */
  private carry: Buffer | null = null;

  push(chunk: Buffer): TerminalProgress[] {
    const data = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = null;
    const found: TerminalProgress[] = [];
    let from = 0;
    for (;;) {
      const start = data.indexOf(PREFIX, from);
      if (start < 0) break;
      const paramsStart = start + PREFIX.length;
      let end = paramsStart;
      let terminatorLength = 0;
      let incomplete = false;
      for (; end - paramsStart <= MAX_PARAMS; end += 1) {
        if (end >= data.length) {
          incomplete = true;
          break;
        }
        const byte = data[end]!;
        if (byte === BEL) terminatorLength = 1;
        else if (byte === ESC) {
          if (end + 1 >= data.length) incomplete = true;
          else if (data[end + 1] === BACKSLASH) terminatorLength = 2;
        } else continue;
        break;
      }
      if (incomplete) {
        this.carry = Buffer.from(data.subarray(start));
        return found;
      }
      if (terminatorLength > 0) {
        const progress = decode(data.toString('latin1', paramsStart, end));
        if (progress) found.push(progress);
      }
      from = Math.max(end, paramsStart);
    }
    this.carry = partialPrefixAtEnd(data);
    return found;
  }
}

/** The tail of `data` that could be the beginning of PREFIX, copied; null if none. */
function partialPrefixAtEnd(data: Buffer): Buffer | null {
  const longest = Math.min(PREFIX.length - 1, data.length);
  for (let length = longest; length > 0; length -= 1) {
    if (data.subarray(data.length - length).equals(PREFIX.subarray(0, length))) {
      return Buffer.from(data.subarray(data.length - length));
    }
  }
  return null;
}
