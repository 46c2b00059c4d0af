import { memo, useMemo, useRef, type MouseEvent } from 'react';
import { IncrementalMarkdown, type MarkdownBlock } from '../../markdown/incremental-markdown.js';

/**
 * A reply rendered as Markdown while it streams. Each top-level block is its
 * own memoised element, so a new token re-renders the last block only; the
 * HTML comes from markdown-it with raw HTML disabled.
 */
export function MarkdownView({ text, streaming }: { readonly text: string; readonly streaming: boolean }) {
  const renderer = useRef<IncrementalMarkdown | null>(null);
  renderer.current ??= new IncrementalMarkdown();
  const markdown = renderer.current;
  const blocks = useMemo(() => markdown.update(text, !streaming), [markdown, text, streaming]);
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
