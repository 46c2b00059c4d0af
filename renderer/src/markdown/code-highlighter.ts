import hljs from 'highlight.js/lib/core';
import type { LanguageFn } from 'highlight.js';

type LanguageLoader = () => Promise<{ default: LanguageFn }>;

/**
 * Each language is its own chunk, loaded the first time a reply shows code in
 * it, so the app starts without highlight.js's grammars (hundreds of kB).
 * One literal import() per language: that is how the bundler finds them.
 */
const LOADERS: Readonly<Record<string, LanguageLoader>> = {
  bash: () => import('highlight.js/lib/languages/bash'),
  c: () => import('highlight.js/lib/languages/c'),
  cpp: () => import('highlight.js/lib/languages/cpp'),
  csharp: () => import('highlight.js/lib/languages/csharp'),
  css: () => import('highlight.js/lib/languages/css'),
  dart: () => import('highlight.js/lib/languages/dart'),
  diff: () => import('highlight.js/lib/languages/diff'),
  dockerfile: () => import('highlight.js/lib/languages/dockerfile'),
  elixir: () => import('highlight.js/lib/languages/elixir'),
  go: () => import('highlight.js/lib/languages/go'),
  graphql: () => import('highlight.js/lib/languages/graphql'),
  haskell: () => import('highlight.js/lib/languages/haskell'),
  ini: () => import('highlight.js/lib/languages/ini'),
  java: () => import('highlight.js/lib/languages/java'),
  javascript: () => import('highlight.js/lib/languages/javascript'),
  json: () => import('highlight.js/lib/languages/json'),
  kotlin: () => import('highlight.js/lib/languages/kotlin'),
  less: () => import('highlight.js/lib/languages/less'),
  lua: () => import('highlight.js/lib/languages/lua'),
  makefile: () => import('highlight.js/lib/languages/makefile'),
  markdown: () => import('highlight.js/lib/languages/markdown'),
  objectivec: () => import('highlight.js/lib/languages/objectivec'),
  perl: () => import('highlight.js/lib/languages/perl'),
  php: () => import('highlight.js/lib/languages/php'),
  plaintext: () => import('highlight.js/lib/languages/plaintext'),
  powershell: () => import('highlight.js/lib/languages/powershell'),
  python: () => import('highlight.js/lib/languages/python'),
  'python-repl': () => import('highlight.js/lib/languages/python-repl'),
  r: () => import('highlight.js/lib/languages/r'),
  ruby: () => import('highlight.js/lib/languages/ruby'),
  rust: () => import('highlight.js/lib/languages/rust'),
  scala: () => import('highlight.js/lib/languages/scala'),
  scss: () => import('highlight.js/lib/languages/scss'),
  shell: () => import('highlight.js/lib/languages/shell'),
  sql: () => import('highlight.js/lib/languages/sql'),
  swift: () => import('highlight.js/lib/languages/swift'),
  typescript: () => import('highlight.js/lib/languages/typescript'),
  xml: () => import('highlight.js/lib/languages/xml'),
  yaml: () => import('highlight.js/lib/languages/yaml'),
};

/** Names a fence may use for a language above (the grammar's own aliases, known before it loads). */
const ALIASES: Readonly<Record<string, string>> = {
  sh: 'bash', zsh: 'bash', h: 'c', 'c++': 'cpp', cc: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', cs: 'csharp',
  'c#': 'csharp', patch: 'diff', docker: 'dockerfile', ex: 'elixir', exs: 'elixir', golang: 'go', gql: 'graphql',
  hs: 'haskell', toml: 'ini', jsp: 'java', js: 'javascript', jsx: 'javascript', mjs: 'javascript',
  cjs: 'javascript', kt: 'kotlin', kts: 'kotlin', mk: 'makefile', mak: 'makefile', make: 'makefile',
  md: 'markdown', mkdown: 'markdown', mkd: 'markdown', objc: 'objectivec', mm: 'objectivec', pl: 'perl',
  pm: 'perl', text: 'plaintext', txt: 'plaintext', ps: 'powershell', ps1: 'powershell', pwsh: 'powershell',
  py: 'python', gyp: 'python', pycon: 'python-repl', rb: 'ruby', rs: 'rust', console: 'shell',
  shellsession: 'shell', ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
  html: 'xml', xhtml: 'xml', svg: 'xml', plist: 'xml', yml: 'yaml',
};

const loading = new Map<string, Promise<void>>();
const listeners = new Set<() => void>();
let generation = 0;

/** The grammar a fence's language name stands for, if one can be loaded. */
function grammarOf(language: string): string | undefined {
  const name = language.toLowerCase();
  const grammar = ALIASES[name] ?? name;
  return Object.hasOwn(LOADERS, grammar) ? grammar : undefined;
}

/**
 * Loads a language's grammar (once); resolves when it is registered, or false
 * when the name is not one this app highlights.
 */
export function loadLanguage(language: string): Promise<boolean> {
  const grammar = grammarOf(language);
  if (grammar === undefined) return Promise.resolve(false);
  let pending = loading.get(grammar);
  if (!pending) {
    pending = LOADERS[grammar]!().then(
      (module) => {
        hljs.registerLanguage(grammar, module.default);
        generation++;
        for (const listener of listeners) listener();
      },
      // A chunk that fails to load leaves its code plain; the next fence tries again.
      () => void loading.delete(grammar),
    );
    loading.set(grammar, pending);
  }
  return pending.then(() => hljs.getLanguage(grammar) !== undefined);
}

/**
 * Highlighted HTML of `code`, or '' (the caller escapes it as plain text)
 * when the language is unknown or still loading; a load it starts is
 * announced through `onLanguageLoaded`, so the caller can render again.
 */
export function highlightCode(code: string, language: string): string {
  return highlightCodeWithEndState(code, language).html;
}

/** Highlighted HTML ('' as above) and where the highlighter ended. */
export interface HighlightedCode {
  readonly html: string;
  /** Whether it ended outside any comment, string or other nested mode (always, for plain text). */
  readonly endsAtTopLevel: boolean;
}

/** `highlightCode`, also telling whether the highlighter ended at its top level. */
export function highlightCodeWithEndState(code: string, language: string): HighlightedCode {
  const grammar = grammarOf(language);
  if (grammar === undefined) return { html: '', endsAtTopLevel: true };
  if (!hljs.getLanguage(grammar)) {
    void loadLanguage(grammar);
    return { html: '', endsAtTopLevel: true };
  }
  try {
    const result = hljs.highlight(code, { language: grammar, ignoreIllegals: true });
    const top = result._top as { parent?: unknown } | undefined;
    return { html: result.value, endsAtTopLevel: top?.parent === undefined };
  } catch {
    return { html: '', endsAtTopLevel: false };
  }
}

/** Grows each time a grammar is registered: HTML rendered at an older value may lack highlighting. */
export function highlightGeneration(): number {
  return generation;
}

/** Calls `listener` after each grammar is registered; returns the unsubscribe. */
export function onLanguageLoaded(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}
