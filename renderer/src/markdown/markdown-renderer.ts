import MarkdownIt from 'markdown-it';
import { highlightCode, highlightCodeWithEndState, type HighlightedCode } from './code-highlighter.js';

/**
 * The one Markdown configuration of the app: no raw HTML (a reply can never
 * inject markup), bare URLs linkified, fenced code highlighted by
 * highlight.js once its language has loaded (code-highlighter.ts). DOM-free,
 * so it also runs under Node (tests, benchmarks).
 */
const md = new MarkdownIt({
  html: false,
  linkify: true,
  typographer: false,
  highlight: (code, lang) => {
    const language = lang.trim().split(/\s+/)[0] ?? '';
    return language === '' ? '' : highlightCode(code, language);
  },
});

const escapeHtml = md.utils.escapeHtml;

/**
 * Highlights a piece of a fenced code block exactly as the block renderer
 * would (escaped when the language is unknown or still loading). When the
 * piece ends at the highlighter's top level, the next piece highlights the
 * same alone as after it, so a streaming fence can highlight only its new lines.
 */
export function highlightCodePiece(code: string, lang: string): HighlightedCode {
  const language = lang.trim().split(/\s+/)[0] ?? '';
  const highlighted = language === '' ? { html: '', endsAtTopLevel: true } : highlightCodeWithEndState(code, language);
  return highlighted.html === '' ? { html: escapeHtml(code), endsAtTopLevel: highlighted.endsAtTopLevel } : highlighted;
}

// Fenced code gets a bar with its language and a Copy button (wired by the view through event delegation).
const renderFence = md.renderer.rules.fence;
md.renderer.rules.fence = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  const language = token?.info.trim().split(/\s+/)[0] ?? '';
  const code = renderFence ? renderFence(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
  return (
    `<div class="md-code"><div class="md-code-bar"><span class="md-code-lang">${escapeHtml(language || 'text')}</span>` +
    `<button type="button" class="md-code-copy" data-copy-code="">Copy</button></div>${code}</div>\n`
  );
};

// Links open outside the app window.
md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx];
  token?.attrSet('target', '_blank');
  token?.attrSet('rel', 'noopener noreferrer');
  return self.renderToken(tokens, idx, options);
};

// The page's CSP loads no remote images; an image becomes a link to it, labelled with its alt text.
md.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx];
  const src = token?.attrGet('src') ?? '';
  const label = token?.content || src;
  return `<a href="${escapeHtml(src)}" class="md-image-link" target="_blank" rel="noopener noreferrer">${escapeHtml(label)}</a>`;
};

/** Renders a whole Markdown source to HTML. */
export function renderMarkdown(source: string): string {
  return md.render(source);
}
