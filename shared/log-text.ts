/**
 * What one line of a command's output shows, for the runtime (search) and
 * the renderer (drawing) alike, so a match is always where the person sees it.
 * A line is what lies between two newlines of the log; colours start afresh on
 * each line, and cursor moves other than a carriage return are dropped.
 */

/** CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), two-byte escapes, and the 8-bit CSI. */
export const TERMINAL_ESCAPE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;

/** A colour or style change (SGR): the only escape a line keeps the effect of. */
export const SGR_ESCAPE = /^(?:\u001b\[|\u009b)([0-9;:]*)m$/;

/** Control characters a line does not draw (a tab is drawn; a stray ESC of a cut-off sequence is not). */
export const UNDRAWN_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

const visible = (part: string) => part.replace(TERMINAL_ESCAPE, '').replace(UNDRAWN_CONTROLS, '');

/**
 * The line as a terminal leaves it after carriage returns (a progress bar
 * redrawn with `\r`): its last rewrite that shows anything, preceded by the
 * colour changes of the parts it replaced so it keeps their colours. A CRLF
 * line ending is not a rewrite.
 */
export function lastRewrite(raw: string): string {
  const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (!line.includes('\r')) return line;
  const parts = line.split('\r');
  let shown = parts.length - 1;
  while (shown > 0 && visible(parts[shown]!) === '') shown -= 1;
  let styles = '';
  for (let i = 0; i < shown; i += 1) {
    for (const escape of parts[i]!.match(TERMINAL_ESCAPE) ?? []) if (SGR_ESCAPE.test(escape)) styles += escape;
  }
  return styles + parts[shown]!;
}

/** The text a line shows: its last rewrite without escapes or undrawn controls. */
export function logLineText(raw: string): string {
  return visible(lastRewrite(raw));
}
