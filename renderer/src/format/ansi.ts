import { logLineText } from '../../../shared/log-text.js';

/**
 * Terminal control sequences (colours, cursor moves, OSC titles and links)
 * removed, for showing command output as plain monospace text. A carriage
 * return that rewrites a line (progress bars) keeps only the last version.
 */
export function stripAnsi(text: string): string {
  return text.split('\n').map(logLineText).join('\n');
}
