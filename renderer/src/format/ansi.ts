/**
 * Terminal control sequences (colours, cursor moves, OSC titles and links)
 * removed, for showing command output as plain monospace text. A carriage
 * return that rewrites a line (progress bars) keeps only the last version.
 */
// CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), and two-byte escapes.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;

export function stripAnsi(text: string): string {
  const plain = text.replace(ANSI, '').replace(/\r\n/g, '\n');
  if (!plain.includes('\r')) return plain;
  return plain
    .split('\n')
    .map((line) => {
      const parts = line.split('\r');
      // "abc\r" at the end of a chunk: nothing rewrote it yet.
      return parts.filter((part) => part.length > 0).at(-1) ?? '';
    })
    .join('\n');
}
