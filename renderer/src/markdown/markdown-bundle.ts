/** What the lazily loaded Markdown chunk offers the views (markdown-it, highlight.js core). */
export { IncrementalMarkdown, type MarkdownBlock } from './incremental-markdown.js';
export { highlightGeneration, onLanguageLoaded } from './code-highlighter.js';
