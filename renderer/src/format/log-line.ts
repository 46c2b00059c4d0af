import { lastRewrite, SGR_ESCAPE, TERMINAL_ESCAPE, UNDRAWN_CONTROLS } from '../../../shared/log-text.js';

/** A colour: 0–15 the terminal's named colours (drawn from the palette), 16–255 xterm's cube and greys, or `#rrggbb`. */
export type LogColor = number | string;

export interface LogStyle {
  readonly fg: LogColor | null;
  readonly bg: LogColor | null;
  readonly bold: boolean;
  readonly dim: boolean;
  readonly italic: boolean;
  readonly underline: boolean;
  readonly inverse: boolean;
  readonly strike: boolean;
}

/** A run of text in one style; `mark` is a search match. */
export interface LogSpan {
  readonly text: string;
  readonly style: LogStyle | null;
  readonly mark?: boolean;
}

const PLAIN: LogStyle = { fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, inverse: false, strike: false };

/** Applies one SGR parameter list (`1;31`, `38;5;208`, `38:2::255:0:0`) to a style. */
export function applySgr(style: LogStyle, params: string): LogStyle {
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  let next: { -readonly [K in keyof LogStyle]: LogStyle[K] } = { ...style };
  for (let i = 0; i < codes.length; i += 1) {
    const code = codes[i]!;
    if (code === 38 || code === 48) {
      // 38;5;n or 38;2;r;g;b (a colon form may carry an empty colour-space id: 38:2::r:g:b).
      const mode = codes[i + 1];
      let color: LogColor | null = null;
      if (mode === 5 && codes[i + 2] !== undefined) {
        color = Math.min(255, Math.max(0, codes[i + 2]!));
        i += 2;
      } else if (mode === 2) {
        const rgb = params.includes('::') ? codes.slice(i + 3, i + 6) : codes.slice(i + 2, i + 5);
        i += params.includes('::') ? 5 : 4;
        if (rgb.length === 3) color = `#${rgb.map((c) => Math.min(255, Math.max(0, c)).toString(16).padStart(2, '0')).join('')}`;
      }
      if (color !== null) next = code === 38 ? { ...next, fg: color } : { ...next, bg: color };
      continue;
    }
    if (code === 0) next = { ...PLAIN };
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 7) next.inverse = true;
    else if (code === 9) next.strike = true;
    else if (code === 21 || code === 22) next = { ...next, bold: false, dim: false };
    else if (code === 23) next.italic = false;
    else if (code === 24) next.underline = false;
    else if (code === 27) next.inverse = false;
    else if (code === 29) next.strike = false;
    else if (code >= 30 && code <= 37) next.fg = code - 30;
    else if (code === 39) next.fg = null;
    else if (code >= 40 && code <= 47) next.bg = code - 40;
    else if (code === 49) next.bg = null;
    else if (code >= 90 && code <= 97) next.fg = code - 90 + 8;
    else if (code >= 100 && code <= 107) next.bg = code - 100 + 8;
  }
  return next;
}

const isPlain = (style: LogStyle) =>
  style.fg === null && style.bg === null && !style.bold && !style.dim && !style.italic && !style.underline && !style.inverse && !style.strike;

/**
 * A raw log line as styled runs of text: its last rewrite (see shared/log-text),
 * colours and styles from SGR escapes, every other escape and undrawn control
 * dropped. The runs' text is exactly `logLineText(raw)`, so search matches line up.
 */
export function logLineSpans(raw: string): LogSpan[] {
  const line = lastRewrite(raw);
  const spans: LogSpan[] = [];
  let style = PLAIN;
  let at = 0;
  const push = (text: string) => {
    const shown = text.replace(UNDRAWN_CONTROLS, '');
    if (shown === '') return;
    const styled = isPlain(style) ? null : style;
    const last = spans[spans.length - 1];
    if (last && last.style === styled) spans[spans.length - 1] = { text: last.text + shown, style: styled };
    else spans.push({ text: shown, style: styled });
  };
  TERMINAL_ESCAPE.lastIndex = 0;
  for (let found = TERMINAL_ESCAPE.exec(line); found !== null; found = TERMINAL_ESCAPE.exec(line)) {
    push(line.slice(at, found.index));
    at = found.index + found[0].length;
    const sgr = SGR_ESCAPE.exec(found[0]);
    if (sgr) style = applySgr(style, sgr[1]!);
  }
  push(line.slice(at));
  return spans;
}

/** The spans cut so that every occurrence of `query` (ignoring case) is a span of its own with `mark` set. */
export function markMatches(spans: readonly LogSpan[], query: string): LogSpan[] {
  if (query === '') return [...spans];
  const text = spans.map((s) => s.text).join('');
  const lower = text.toLowerCase();
  const needle = query.toLowerCase();
  const ranges: Array<[number, number]> = [];
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + needle.length)) ranges.push([at, at + needle.length]);
  if (ranges.length === 0) return [...spans];
  const out: LogSpan[] = [];
  let offset = 0;
  let range = 0;
  for (const span of spans) {
    const end = offset + span.text.length;
    let cursor = offset;
    while (cursor < end) {
      const current = ranges[range];
      if (!current || current[0] >= end) {
        out.push({ text: text.slice(cursor, end), style: span.style });
        cursor = end;
      } else if (cursor < current[0]) {
        out.push({ text: text.slice(cursor, current[0]), style: span.style });
        cursor = current[0];
      } else {
        const stop = Math.min(end, current[1]);
        out.push({ text: text.slice(cursor, stop), style: span.style, mark: true });
        cursor = stop;
        if (stop === current[1]) range += 1;
      }
    }
    offset = end;
  }
  return out;
}

/** xterm's 256-colour table for 16–255 (the cube and the greys); 0–15 come from the page's palette. */
export function xtermColor(index: number): string {
  if (index < 232) {
    const n = index - 16;
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    return `rgb(${level(Math.floor(n / 36))}, ${level(Math.floor(n / 6) % 6)}, ${level(n % 6)})`;
  }
  const grey = 8 + (index - 232) * 10;
  return `rgb(${grey}, ${grey}, ${grey})`;
}
