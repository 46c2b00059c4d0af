import { memo, useEffect, useMemo, useRef, useSyncExternalStore, type MouseEvent } from 'react';
import type { IncrementalMarkdown, MarkdownBlock } from '../../markdown/incremental-markdown.js';
import { loadedMarkdown, loadMarkdown, markdownVersion, subscribeMarkdown } from '../../markdown/lazy-markdown.js';

/**
 * A reply rendered as Markdown while it streams. Each top-level block is its
 * own memoised element, so a new token re-renders the last block only; the
 * HTML comes from markdown-it with raw HTML disabled. Until the Markdown
 * chunk has loaded, the reply shows as plain text.
 */
export function MarkdownView({ text, streaming }: { readonly text: string; readonly streaming: boolean }) {
  const version = useSyncExternalStore(subscribeMarkdown, markdownVersion);
  const module = loadedMarkdown();
  useEffect(() => {
    if (!module) void loadMarkdown().catch(() => undefined); // stays plain text; the next mount tries again
  }, [module]);
  if (!module) {
    return (
      <div className="markdown markdown-plain" data-streaming={streaming || undefined}>
        <p>{text}</p>
      </div>
    );
  }
  return <RenderedMarkdown create={() => new module.IncrementalMarkdown()} text={text} streaming={streaming} version={version} />;
}

function RenderedMarkdown({
  create,
  text,
  streaming,
  version,
}: {
  readonly create: () => IncrementalMarkdown;
  readonly text: string;
  readonly streaming: boolean;
  /** Changes when a code language loads, so blocks showing it plain render again. */
  readonly version: number;
}) {
  const renderer = useRef<IncrementalMarkdown | null>(null);
  renderer.current ??= create();
  const markdown = renderer.current;
  const blocks = useMemo(() => markdown.update(text, !streaming), [markdown, text, streaming, version]);
  return (
    <div className="markdown" data-streaming={streaming || undefined} onClick={copyCode}>
      {blocks.map((block) => (
        <Block key={block.key} block={block} />
      ))}
    </div>
  );
}

const Block = memo(function Block({ block }: { readonly block: MarkdownBlock }) {
  return <div className="markdown-block" dangerouslySetInnerHTML={{ __html: block.html }} />;
});

/** The Copy button of a code block (one delegated listener; the HTML carries no handlers). */
function copyCode(event: MouseEvent<HTMLDivElement>): void {
  const button = (event.target as HTMLElement).closest<HTMLButtonElement>('[data-copy-code]');
  const code = button?.closest('.md-code')?.querySelector('pre')?.textContent;
  if (!button || code == null) return;
  void navigator.clipboard.writeText(code).then(
    () => flash(button, 'Copied'),
    () => flash(button, 'Copy failed'),
  );
}

function flash(button: HTMLButtonElement, label: string): void {
  button.textContent = label;
  setTimeout(() => (button.textContent = 'Copy'), 1_500);
}
