import type { PolicyPatternToken } from '../../../shared/protocol/command-execution.js';

/**
 * The rules editor's one-line pattern: words separated by spaces, and
 * alternatives for one position joined by `|` — `git push|fetch` is
 * `["git", ["push", "fetch"]]`. The runtime validates what this produces.
 */
export function parsePatternText(text: string): PolicyPatternToken[] {
  return text
    .trim()
    .split(/\s+/)
    .filter((word) => word.length > 0)
    .map((word) => (word.includes('|') ? word.split('|') : word));
}

export function formatPattern(pattern: readonly PolicyPatternToken[]): string {
  return pattern.map((token) => (typeof token === 'string' ? token : token.join('|'))).join(' ');
}
