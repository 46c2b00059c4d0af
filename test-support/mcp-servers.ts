import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths.js';

/** Real MCP servers from node_modules, started with this Node (no network, no npx). */
export const everythingServerScript = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
export const filesystemServerScript = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

const toml = (value: string) => JSON.stringify(value);

/** A `[mcp_servers.<name>]` table for a stdio server run by `node script ...args`. */
export function stdioServerToml(name: string, script: string, args: readonly string[] = [], extra = ''): string {
  return `[mcp_servers.${name}]\ncommand = ${toml(process.execPath)}\nargs = [${[script, ...args].map(toml).join(', ')}]\n${extra}\n`;
}

/**
 * Whether a process id is still running. A zombie (dead, waiting for its
 * parent to reap it; in a container init may never do so) counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}
