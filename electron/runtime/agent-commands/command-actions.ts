import type { CommandAction } from '../../../shared/protocol/index.js';
import { commandName } from '../policy/command-safety.js';

const READERS = new Set(['cat', 'head', 'tail', 'less', 'more', 'bat', 'nl', 'wc']);
const LISTERS = new Set(['ls', 'tree', 'find', 'fd', 'du']);
const SEARCHERS = new Set(['grep', 'rg', 'ag', 'ack', 'egrep', 'fgrep', 'git-grep']);

/**
 * Codex's `commandActions`: a best-effort reading of each command of a script
 * for display (read a file, list files, search); anything else is `unknown`.
 */
export function commandActions(script: string, commands: readonly (readonly string[])[]): CommandAction[] {
  if (commands.length === 0) return [{ type: 'unknown', command: script }];
  return commands.map((argv) => describe(argv));
}

function describe(argv: readonly string[]): CommandAction {
  const command = argv.join(' ');
  const name = commandName(argv[0] ?? '');
  const operands = argv.slice(1).filter((arg) => !arg.startsWith('-'));
  if (READERS.has(name) && operands.length === 1) {
    const path = operands[0]!;
    return { type: 'read', command, name: path.split('/').pop() ?? path, path };
  }
  if (LISTERS.has(name)) return { type: 'listFiles', command, path: operands[0] ?? null };
  if (SEARCHERS.has(name)) return { type: 'search', command, query: operands[0] ?? null, path: operands[1] ?? null };
  return { type: 'unknown', command };
}
