/**
 * markdown-it and highlight.js are a chunk of their own, so the window paints
 * its shell without parsing them. main.tsx starts the load at once; until it
 * lands (a few milliseconds, usually before the first thread has loaded),
 * replies show as plain text.
 */
type MarkdownModule = typeof import('./markdown-bundle.js');

let loaded: MarkdownModule | null = null;
let loading: Promise<MarkdownModule> | undefined;
let version = 0;
const listeners = new Set<() => void>();

function changed(): void {
  version++;
  for (const listener of listeners) listener();
}

/** Loads the Markdown chunk (once; again after a failed attempt). */
export function loadMarkdown(): Promise<MarkdownModule> {
  loading ??= import('./markdown-bundle.js').then(
    (module) => {
      loaded = module;
      // A code language arriving later re-renders replies that show code in it.
      module.onLanguageLoaded(changed);
      changed();
      return module;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The Markdown module once loaded, else null. */
export function loadedMarkdown(): MarkdownModule | null {
  return loaded;
}

/** Grows when the module or a code language loads (for useSyncExternalStore). */
export function markdownVersion(): number {
  return version;
}

export function subscribeMarkdown(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}
