import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { loadLanguage } from '../renderer/src/markdown/code-highlighter.js';
import { BlockCache, IncrementalMarkdown } from '../renderer/src/markdown/incremental-markdown.js';
import { renderMarkdown } from '../renderer/src/markdown/markdown-renderer.js';
import { summarize, type LatencySummary } from './stats.js';

/** One streaming update (one token-sized delta) at two reply sizes. */
export interface StreamingCase {
  /** A ~5 KB reply. */
  readonly update5Kb: LatencySummary;
  /** The same at ~50 KB. */
  readonly update50Kb: LatencySummary;
  /** median 50 KB / median 5 KB; the renderer is meant to keep it near 1. */
  readonly ratio: number;
  /** For comparison: rendering the whole reply on every update, as a naive view would. */
  readonly fullRender5KbMedianMs: number;
  readonly fullRender50KbMedianMs: number;
}

/** How streaming Markdown scales with the length of a reply. */
export interface MarkdownStreamingReport {
  /** The reply's last paragraph streams below finished sections (prose, lists, code, tables). */
  readonly paragraphTail: StreamingCase;
  /** The worst case: the whole reply is one code fence still open (a long file being written). */
  readonly openCodeFence: StreamingCase;
  readonly target: string;
  readonly meetsTarget: boolean;
}

export interface MarkdownStreamingOptions {
  /** Independent streams timed per size. */
  readonly rounds?: number;
  /** Characters per streamed delta (a token or a few). */
  readonly deltaChars?: number;
}

const TARGET_RATIO = 1.5;
/** The reply's last paragraph, streamed delta by delta while the rest is already on screen. */
const TAIL = `To sum up: the flakiness came from waiting a fixed time instead of waiting for the session cookie, and the
fix replaces the sleep with an explicit wait on the cookie, which both removes the race and makes the test faster. I
ran the suite forty times in a row without a failure; if you want, I can also add a lint rule that flags \`sleep\` calls
in end-to-end tests so the pattern does not come back, and write a short note in CONTRIBUTING.md explaining why.
`;

/**
 * Times one streaming update of the incremental renderer (split into blocks,
 * render only what changed) at 5 KB and 50 KB replies. Pure computation: no
 * DOM, no React; the view adds a constant per update on top.
 */
export async function markdownStreamingBench(options: MarkdownStreamingOptions = {}): Promise<MarkdownStreamingReport> {
  // The app loads a language's grammar on first sight; time highlighting, not its absence.
  await loadLanguage('typescript');
  const rounds = options.rounds ?? 30;
  const deltaChars = options.deltaChars ?? 16;
  const paragraphTail = streamingCase(sampleReply, rounds, deltaChars);
  const openCodeFence = streamingCase(openFenceReply, rounds, deltaChars);
  return {
    paragraphTail,
    openCodeFence,
    target: `50 KB / 5 KB median <= ${TARGET_RATIO} in both cases`,
    meetsTarget: paragraphTail.ratio <= TARGET_RATIO && openCodeFence.ratio <= TARGET_RATIO,
  };
}

function streamingCase(makeReply: (bytes: number) => string, rounds: number, deltaChars: number): StreamingCase {
  const small = makeReply(5 * 1024);
  const large = makeReply(50 * 1024);
  // Warm the JIT on both shapes before anything is timed.
  streamTail(small, deltaChars);
  streamTail(large, deltaChars);
  const smallSamples: number[] = [];
  const largeSamples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    smallSamples.push(...streamTail(small, deltaChars));
    largeSamples.push(...streamTail(large, deltaChars));
  }
  const update5Kb = summarize(smallSamples);
  const update50Kb = summarize(largeSamples);
  return {
    update5Kb,
    update50Kb,
    ratio: Math.round((update50Kb.medianMs / update5Kb.medianMs) * 100) / 100,
    fullRender5KbMedianMs: fullRenderMedian(small),
    fullRender50KbMedianMs: fullRenderMedian(large),
  };
}

/** Renders the reply up to its last TAIL.length characters untimed, then times each delta of that tail. */
function streamTail(reply: string, deltaChars: number): number[] {
  const markdown = new IncrementalMarkdown(renderMarkdown, new BlockCache());
  const tailStart = reply.length - TAIL.length;
  markdown.update(reply.slice(0, tailStart));
  const samples: number[] = [];
  for (let end = tailStart + deltaChars; end <= reply.length; end += deltaChars) {
    const prefix = reply.slice(0, end);
    const start = performance.now();
    markdown.update(prefix);
    samples.push(performance.now() - start);
  }
  return samples;
}

function fullRenderMedian(reply: string): number {
  const samples: number[] = [];
  for (let i = 0; i < 15; i++) {
    const start = performance.now();
    renderMarkdown(reply);
    samples.push(performance.now() - start);
  }
  return summarize(samples).medianMs;
}

/** A realistic agent reply of about `bytes` characters: headings, prose, lists, code, tables, then TAIL. */
export function sampleReply(bytes: number): string {
  const sections: string[] = [];
  let length = TAIL.length;
  for (let n = 1; length < bytes; n++) {
    const section = `## Step ${n}: check \`module-${n}.ts\`

The function \`load${n}\` reads the config on every call, which costs about ${n * 3} ms per request. See
https://example.com/docs/step-${n} for the background; the fix below caches it **once** per process.

- read the file once at start-up (step ${n}.1)
- invalidate the cache when the file changes
- keep the old behaviour behind a flag for a release

\`\`\`ts
export function load${n}(path: string): Config {
  const cached = cache.get(path);
  if (cached) return cached;
  const parsed = parse(readFileSync(path, 'utf8'));
  cache.set(path, parsed);
  return parsed;
}
\`\`\`

| case | before | after |
| ---- | ------ | ----- |
| cold | ${n * 3} ms | ${n * 3} ms |
| warm | ${n * 3} ms | 0.1 ms |

`;
    sections.push(section);
    length += section.length;
  }
  return `${sections.join('')}${TAIL}`;
}

/** A reply that is one TypeScript fence still open: about `bytes` of code, comments and template strings. */
export function openFenceReply(bytes: number): string {
  const lines = ['Here is the whole module:', '', '```ts'];
  let length = 0;
  for (let n = 1; length < bytes; n++) {
    const chunk = [
      `/** Loads part ${n} of the config, cached per process. */`,
      `export function load${n}(path: string): Config {`,
      `  const cached = cache.get(path); // hit after the first call`,
      `  if (cached) return cached;`,
      `  const parsed = parse(readFileSync(path, 'utf8'), \`part ${n}\`);`,
      `  cache.set(path, parsed);`,
      `  return parsed;`,
      `}`,
      '',
    ].join('\n');
    lines.push(chunk);
    length += chunk.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(await markdownStreamingBench(), null, 2)}\n`);
}
