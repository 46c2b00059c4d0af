import { closesFence, opensFence, type Fence } from './block-splitter.js';
import { highlightCodePiece } from './markdown-renderer.js';

/** Info strings rendered the same with or without markdown-it's unescaping (`ts`, `c++`, `objective-c`...). */
const PLAIN_INFO = /^[\w+#.-]*$/;

/**
 * The last block of a streaming reply while it is a fenced code block that
 * has not closed yet. Each update highlights only the lines that arrived
 * since the last point where the highlighter was back at its top level
 * (outside any comment or string); everything before is kept as HTML. The
 * result equals rendering the whole block, wrapper included, since the
 * wrapper is taken from the renderer itself.
 */
export class OpenFence {
  /** Set once a complete closing fence line arrived: the block is no longer an open fence. */
  closed = false;
  private settledHtml = '';
  /** Offsets into the block text. */
  private settledEnd: number;
  private scannedEnd: number;

  private constructor(
    private readonly fence: Fence,
    private readonly lang: string,
    private readonly before: string,
    private readonly after: string,
    contentStart: number,
  ) {
    this.settledEnd = contentStart;
    this.scannedEnd = contentStart;
  }

  /** Tracks `text` when it begins with a complete, unindented opening fence line; null otherwise. */
  static start(text: string, render: (source: string) => string): OpenFence | null {
    const newline = text.indexOf('\n');
    if (newline === -1) return null;
    const opening = text.slice(0, newline);
    const fence = opensFence(opening);
    const info = opening.trim().slice(fence?.length ?? 0).trim();
    if (!fence || fence.indent !== 0 || !PLAIN_INFO.test(info)) return null;
    // The renderer's own wrapper around empty content: everything before and after the code.
    const empty = render(`${opening}\n`);
    const split = empty.lastIndexOf('</code></pre>');
    if (split === -1) return null;
    return new OpenFence(fence, info, empty.slice(0, split), empty.slice(split), newline + 1);
  }

  /**
   * The HTML of `text` (this block, grown by appending), or null when it
   * does not render as an open fence: `closed` tells whether for good.
   */
  render(text: string): string | null {
    // The renderer rewrites CR, CRLF and NUL first; such text takes the full render.
    if (/[\r\0]/.test(text.slice(this.scannedEnd))) {
      this.closed = true;
      return null;
    }
    const completeEnd = text.lastIndexOf('\n') + 1;
    for (let offset = this.scannedEnd; offset < completeEnd; ) {
      const newline = text.indexOf('\n', offset);
      if (closesFence(text.slice(offset, newline), this.fence)) {
        this.closed = true;
        return null;
      }
      offset = newline + 1;
    }
    this.scannedEnd = Math.max(this.scannedEnd, completeEnd);
    // A last line still arriving that reads as a closing fence closes the block in a full render.
    const partial = text.slice(completeEnd);
    if (partial !== '' && closesFence(partial, this.fence)) return null;
    // A blank last line is not part of the code (yet).
    const end = /^[ \t]*$/.test(partial) ? completeEnd : text.length;

    let pending: string | null = null;
    if (completeEnd > this.settledEnd) {
      const lines = text.slice(this.settledEnd, completeEnd);
      const highlighted = highlightCodePiece(lines, this.lang);
      if (highlighted.endsAtTopLevel) {
        this.settledHtml += highlighted.html;
        this.settledEnd = completeEnd;
      } else if (completeEnd === end) {
        pending = highlighted.html;
      }
    }
    const rest = text.slice(this.settledEnd, end);
    pending ??= rest === '' ? '' : highlightCodePiece(rest, this.lang).html;
    return this.before + this.settledHtml + pending + this.after;
  }
}
