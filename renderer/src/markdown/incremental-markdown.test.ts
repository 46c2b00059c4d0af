import hljs from 'highlight.js/lib/core';
import { describe, expect, it } from 'vitest';
import { scanBlocks } from './block-splitter.js';
import { BlockCache, IncrementalMarkdown } from './incremental-markdown.js';
import { highlightGeneration, loadLanguage, onLanguageLoaded } from './code-highlighter.js';
import { renderMarkdown } from './markdown-renderer.js';

/** A reply using every construct whose blocks could interact: loose lists, fences with blank lines, quotes, tables. */
const REPLY = `# Fixing the flaky login test

The test fails about **one run in twenty**. Here is what I found, see https://example.com/issue/42.

1. The session cookie is set *after* the redirect.
2. The wait uses a fixed \`sleep(500)\`.

3. A third item, separated by a blank line, keeps the list loose.

- bullet one
  continued on an indented line

  a second paragraph in the same item
- bullet two

    indented code after a blank line

> A quote
> spanning lines

> A second quote

\`\`\`ts
export function waitForCookie(page: Page): Promise<void> {

  // a blank line inside the fence must not split it
  return page.waitForFunction(() => document.cookie.includes('session='));
}
\`\`\`

~~~~
a tilde fence
~~~
still inside (a shorter fence does not close it)
~~~~

| step | before | after |
| ---- | ------ | ----- |
| wait | 500 ms | event |

Setext heading
--------------

***

Final paragraph with a [link](https://example.com) and \`code\`.
`;

/** Streams `text` in `chunk`-sized deltas and checks every update against a full render. */
function streamAndCompare(text: string, chunk: number): void {
  const incremental = new IncrementalMarkdown(renderMarkdown, new BlockCache());
  for (let end = chunk; end < text.length + chunk; end += chunk) {
    const prefix = text.slice(0, end);
    const html = incremental
      .update(prefix)
      .map((b) => b.html)
      .join('');
    expect(html, `after ${prefix.length} chars`).toBe(renderMarkdown(prefix));
  }
}

describe('incremental Markdown', () => {
  it('renders exactly what a full render gives, at every point of a stream', () => {
    streamAndCompare(REPLY, 3);
    streamAndCompare(REPLY, 17);
    streamAndCompare(REPLY.replace(/\n/g, '\r\n'), 11);
  });

  it('splits a reply into several blocks, never inside fenced code', () => {
    const layout = scanBlocks(REPLY);
    expect(layout.starts.length).toBeGreaterThan(8);
    const fence = REPLY.indexOf('```ts');
    const fenceEnd = REPLY.indexOf('```\n', fence + 5);
    expect(layout.starts.some((s) => s > fence && s <= fenceEnd)).toBe(false);
  });

  it('reuses finished blocks and renders only the last one on each update', () => {
    const rendered: string[] = [];
    const incremental = new IncrementalMarkdown((source) => {
      rendered.push(source);
      return renderMarkdown(source);
    }, new BlockCache());
    const head = 'First paragraph.\n\nSecond paragraph.\n\nThird, still stream';
    const first = incremental.update(head);
    expect(first.map((b) => b.html)).toEqual(['<p>First paragraph.</p>\n', '<p>Second paragraph.</p>\n', '<p>Third, still stream</p>\n']);
    rendered.length = 0;
    const second = incremental.update(`${head}ing along.`);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    expect(rendered).toEqual(['Third, still streaming along.']);
    expect(second[2]?.html).toContain('streaming along');
  });

  it('renders a finished block once, even for another message with the same text', () => {
    let calls = 0;
    const cache = new BlockCache();
    const render = (source: string) => {
      calls += 1;
      return renderMarkdown(source);
    };
    const text = 'A paragraph.\n\nAnother one.\n';
    new IncrementalMarkdown(render, cache).update(text, true);
    const before = calls;
    new IncrementalMarkdown(render, cache).update(text, true);
    expect(calls).toBe(before);
  });

  it('starts over when the text is replaced rather than extended', () => {
    const incremental = new IncrementalMarkdown(renderMarkdown, new BlockCache());
    incremental.update('Old text.\n\nMore old text.');
    const html = incremental
      .update('New text.\n\n- a list')
      .map((b) => b.html)
      .join('');
    expect(html).toBe(renderMarkdown('New text.\n\n- a list'));
  });

  it('keeps a document with link references whole, so the references resolve', () => {
    const text = 'See [the docs][docs].\n\nMore text.\n\n[docs]: https://example.com/docs\n';
    expect(scanBlocks(text).hasReferences).toBe(true);
    const html = new IncrementalMarkdown(renderMarkdown, new BlockCache())
      .update(text)
      .map((b) => b.html)
      .join('');
    expect(html).toContain('href="https://example.com/docs"');
  });
});

/** A long file being written inside one fence: comments, strings and template literals spanning lines. */
function longFence(lang: string, lines: number): string {
  const body: string[] = [];
  for (let i = 0; i < lines; i++) {
    if (i % 9 === 0 && lang === 'python') body.push(`"""docstring ${i}`, 'still inside the string', '"""');
    else if (i % 9 === 0) body.push(`/* block comment ${i}`, ' * still inside the comment', ' */');
    else if (i % 7 === 0) body.push(`const template${i} = \`line one`, '  line two with ${value}', '`;');
    else body.push(`export function f${i}(a: number): string { return "x<${i}>" + a; } // note ${i}`);
  }
  return `Here is the file:\n\n\`\`\`${lang}\n${body.join('\n')}\n`;
}

describe('incremental Markdown inside an open code fence', () => {
  it.each(['ts', 'python', 'nolang', ''])('renders exactly what a full render gives while a %s fence streams', async (lang) => {
    if (lang === 'ts' || lang === 'python') {
      expect(await loadLanguage(lang)).toBe(true);
      expect(renderMarkdown(longFence(lang, 3))).toContain(lang === 'ts' ? 'hljs-comment' : 'hljs-string');
    }
    streamAndCompare(longFence(lang, 40), 7);
    streamAndCompare(longFence(lang, 40), 23);
  });

  it('renders exactly while a fence closes and the reply goes on, a partial closing line included', async () => {
    await Promise.all([loadLanguage('ts'), loadLanguage('js')]);
    const text = `${longFence('ts', 12)}\`\`\`\n\nAfter the code.\n\n~~~js\nlet a = 1;\n~~~\nTail paragraph.\n`;
    streamAndCompare(text, 1);
    streamAndCompare(text, 5);
  });

  it('highlights only the new lines of a long open fence, not the whole block again', async () => {
    await loadLanguage('ts');
    const rendered: string[] = [];
    const incremental = new IncrementalMarkdown((source) => {
      rendered.push(source);
      return renderMarkdown(source);
    }, new BlockCache());
    const text = longFence('ts', 300);
    incremental.update(text);
    rendered.length = 0;
    const next = `${text}export const added = 1;\n`;
    const html = incremental
      .update(next)
      .map((b) => b.html)
      .join('');
    expect(html).toBe(renderMarkdown(next));
    // The open fence is extended without a full render of the block (the markdown renderer is not called).
    expect(rendered).toEqual([]);
  });
});

describe('Markdown safety', () => {
  it('escapes HTML in a reply instead of rendering it', () => {
    const html = renderMarkdown('Hello <script>alert(1)</script> <img src=x onerror=alert(1)>\n\n<div>block</div>');
    expect(html).not.toMatch(/<script|<img|<div/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('never renders javascript: or vbscript: URLs as links', () => {
    const html = renderMarkdown(
      '[click](javascript:alert(1)) [x](JAVASCRIPT:alert(1)) <javascript:alert(1)> [v](vbscript:msgbox(1)) ![i](javascript:alert(1))',
    );
    expect(html).not.toMatch(/href="\s*(javascript|vbscript):/i);
    expect(html).not.toMatch(/<a [^>]*href="[^"]*script:/i);
  });

  it('opens links outside the app and shows images as links (the CSP loads no remote images)', () => {
    expect(renderMarkdown('[site](https://example.com)')).toContain(
      '<a href="https://example.com" target="_blank" rel="noopener noreferrer">site</a>',
    );
    const image = renderMarkdown('![diagram](https://example.com/d.png)');
    expect(image).not.toContain('<img');
    expect(image).toContain('>diagram</a>');
  });

  it('highlights fenced code with a known language and escapes the rest', async () => {
    await loadLanguage('js');
    const html = renderMarkdown('```js\nconst a = "<b>";\n```\n\n```nolang\n<b>raw</b>\n```\n');
    expect(html).toContain('class="hljs-keyword"');
    expect(html).toContain('&lt;b&gt;raw&lt;/b&gt;');
    expect(html).toContain('data-copy-code');
  });
});

describe('code languages on demand', () => {
  it('shows code plain until its language loads, then a streamed reply renders it highlighted', async () => {
    // Rust is used by no other test here, so its grammar is not loaded yet.
    const reply = 'Here:\n\n```rust\nfn main() { let x = 1; }\n```\n\nDone.\n';
    const incremental = new IncrementalMarkdown();
    const before = incremental.update(reply, true);
    expect(before.map((b) => b.html).join('')).toContain('fn main() { let x = 1; }');
    expect(before.map((b) => b.html).join('')).not.toContain('hljs-keyword');

    const generation = highlightGeneration();
    // The render above asked for Rust; nothing else here does. (Other languages may load meanwhile.)
    await new Promise<void>((resolve) => {
      const stop = onLanguageLoaded(() => {
        if (hljs.getLanguage('rust')) resolve(stop());
      });
    });
    expect(highlightGeneration()).toBeGreaterThan(generation);
    const after = incremental.update(reply, true).map((b) => b.html).join('');
    expect(after).toContain('<span class="hljs-keyword">fn</span>');
    // A message rendered afresh (a row scrolled back into view) is highlighted too: the shared cache was cleared.
    expect(new IncrementalMarkdown().update(reply, true).map((b) => b.html).join('')).toBe(after);
  });

  it('knows the names fences use (ts, sh, yml, c++) and refuses unknown ones without loading anything', async () => {
    expect(await loadLanguage('ts')).toBe(true);
    expect(await loadLanguage('SH')).toBe(true);
    expect(await loadLanguage('yml')).toBe(true);
    expect(await loadLanguage('c++')).toBe(true);
    expect(await loadLanguage('no-such-language')).toBe(false);
    expect(renderMarkdown('```no-such-language\n<b>x</b>\n```\n')).toContain('&lt;b&gt;x&lt;/b&gt;');
  });
});
