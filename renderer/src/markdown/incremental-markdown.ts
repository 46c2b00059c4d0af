import { scanBlocks } from './block-splitter.js';
import { highlightGeneration, onLanguageLoaded } from './code-highlighter.js';
import { renderMarkdown } from './markdown-renderer.js';
import { OpenFence } from './open-fence.js';

/** One rendered top-level block; `key` is stable while the reply grows. */
export interface MarkdownBlock {
  readonly key: string;
  readonly html: string;
}

/** Finished blocks by source text, shared by every message so a row scrolled back into view renders for free. */
export class BlockCache {
  private readonly entries = new Map<string, string>();

  constructor(private readonly maxEntries = 4_000) {}

  get(source: string): string | undefined {
    const html = this.entries.get(source);
    if (html !== undefined) {
      this.entries.delete(source);
      this.entries.set(source, html);
    }
    return html;
  }

  clear(): void {
    this.entries.clear();
  }

  set(source: string, html: string): void {
    this.entries.set(source, html);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}

const sharedCache = new BlockCache();
// Blocks rendered before a code language loaded show that code plain; render them again.
onLanguageLoaded(() => sharedCache.clear());

/**
 * Streaming Markdown for one message. Each update scans from the start of the
 * previous last block (earlier blocks are final) and renders only blocks it
 * has not rendered before: while a reply streams, that is its last,
 * unfinished block, so an update at 50 KB costs about what it costs at 5 KB.
 * Finished blocks keep their object identity, so views memoised on them skip
 * work too. A last block that is a code fence still open (a long file being
 * written) is itself incremental: only its new lines are highlighted.
 *
 * Streaming only appends: text that agrees with the previous text from the
 * start of its last block on is taken as a continuation. Anything else starts
 * over; a caller that rewrites earlier text should use a new instance.
 */
export class IncrementalMarkdown {
  /** Blocks before the last, final. */
  private readonly finished: MarkdownBlock[] = [];
  private lastStart = 0;
  private lastSource = '';
  private blocks: readonly MarkdownBlock[] = [];
  private started = false;
  private generation = highlightGeneration();
  /** The last block while it is an open code fence. */
  private fence: OpenFence | null = null;

  constructor(
    private readonly render: (source: string) => string = renderMarkdown,
    private readonly cache: BlockCache = sharedCache,
  ) {}

  /**
   * The blocks of `source`, reusing everything an earlier update rendered.
   * `complete` says no more text will come, so the last block is cached too.
   */
  update(source: string, complete = false): readonly MarkdownBlock[] {
    if (this.generation !== highlightGeneration()) {
      // A code language loaded since: earlier blocks may hold its code unhighlighted.
      this.generation = highlightGeneration();
      this.started = false;
    }
    const continues = this.started && source.startsWith(this.lastSource, this.lastStart);
    if (continues && source.length === this.lastStart + this.lastSource.length) return this.blocks;
    if (!continues) {
      this.finished.length = 0;
      this.fence = null;
    }
    // Inside an open fence no block can end until the fence closes: skip the scan.
    if (continues && this.fence && !complete) {
      const text = source.slice(this.lastStart);
      const html = this.fence.render(text);
      if (html !== null) return this.publishLast(text, html);
      if (this.fence.closed) this.fence = null;
    }
    const from = continues ? this.lastStart : 0;
    const scan = scanBlocks(source, from);
    if (scan.hasReferences) {
      this.finished.length = 0;
      return this.settle(source, 0, complete);
    }
    const { starts } = scan;
    for (let i = 0; i < starts.length - 1; i++) {
      const text = source.slice(starts[i], starts[i + 1]);
      this.finished.push({ key: String(this.finished.length), html: this.cached(text) });
    }
    return this.settle(source, starts[starts.length - 1] ?? from, complete);
  }

  private settle(source: string, lastStart: number, complete: boolean): readonly MarkdownBlock[] {
    const text = source.slice(lastStart);
    if (lastStart !== this.lastStart || complete) this.fence = null;
    this.lastStart = lastStart;
    if (complete) return this.publishLast(text, this.cached(text));
    this.fence ??= OpenFence.start(text, this.render);
    const html = this.fence?.render(text) ?? null;
    if (this.fence?.closed) this.fence = null;
    return this.publishLast(text, html ?? this.render(text));
  }

  private publishLast(text: string, html: string): readonly MarkdownBlock[] {
    this.started = true;
    this.lastSource = text;
    this.blocks = [...this.finished, { key: String(this.finished.length), html }];
    return this.blocks;
  }

  private cached(text: string): string {
    const hit = this.cache.get(text);
    if (hit !== undefined) return hit;
    const html = this.render(text);
    this.cache.set(text, html);
    return html;
  }
}
