import { createHash } from 'node:crypto';

/** What providers accept as a function name (OpenAI, DeepSeek and most others). */
export const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;
const HASH_CHARS = 8;

export interface McpToolRef {
  readonly server: string;
  readonly tool: string;
}

/** A short hash of the exact server and tool names, so a cut or clashing name stays unique and stable. */
function shortHash(ref: McpToolRef): string {
  return createHash('sha256').update(`${ref.server}\u0000${ref.tool}`).digest('hex').slice(0, HASH_CHARS);
}

function withHash(base: string, ref: McpToolRef): string {
  return `${base.slice(0, MAX_NAME - HASH_CHARS - 1)}_${shortHash(ref)}`;
}

/**
 * The name the model sees for one MCP tool, `mcp__<server>__<tool>`, with
 * characters a provider rejects replaced by `_` and long names cut with a
 * hash suffix. Depends on nothing but the two names.
 */
export function modelToolName(ref: McpToolRef): string {
  const base = `mcp__${ref.server}__${ref.tool}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  return base.length <= MAX_NAME ? base : withHash(base, ref);
}

/**
 * Names for a set of tools. Refs are taken in (server, tool) order; when two
 * map to the same name, the later one gets a hash suffix, so the outcome
 * never depends on the order servers became ready.
 */
export function assignModelToolNames(refs: readonly McpToolRef[]): Map<string, McpToolRef> {
  const sorted = [...refs].sort((a, b) => compare(a.server, b.server) || compare(a.tool, b.tool));
  const byName = new Map<string, McpToolRef>();
  for (const ref of sorted) {
    let name = modelToolName(ref);
    if (byName.has(name)) name = withHash(name, ref);
    for (let n = 2; byName.has(name); n++) name = withHash(`${name.slice(0, MAX_NAME - HASH_CHARS - 4)}_${n}`, ref);
    byName.set(name, ref);
  }
  return byName;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
