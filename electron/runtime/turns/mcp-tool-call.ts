import type { ThreadItem } from '../../../shared/protocol/index.js';
import { mcpResultText } from '../../mcp/mcp-result-text.js';
import type { McpToolRef } from '../../mcp/tool-names.js';
import type { McpCallContext } from '../../mcp/mcp-manager.js';
import type { McpApprovalVerdict, McpCallUnderReview } from '../../mcp/mcp-tool-approval.js';
import type { ModelToolSpec } from '../../model/types.js';
import type { EventLog } from '../event-log.js';
import type { ArgumentsCheck, ToolEntry, ToolInvocation, ToolResult, ToolSource } from '../tools/tool-table.js';
import type { ActiveTurn } from '../active-turn.js';

type McpToolCallItem = Extract<ThreadItem, { type: 'mcpToolCall' }>;

/** What the turn runner needs of the MCP manager. */
export interface McpToolCaller {
  /** The ready servers' tools; the same array while they do not change. */
  toolSpecs(): readonly ModelToolSpec[];
  resolveTool(modelName: string): McpToolRef | null;
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; context: McpCallContext; onProgress?: (message: string) => void },
  ): Promise<{ content: unknown[]; structuredContent?: unknown; isError?: boolean; _meta?: unknown }>;
  /** The tool's `readOnlyHint` annotation, when its server lists one. */
  readOnlyHint(server: string, tool: string): boolean | null;
  /** Whether the agent's call may run, asking the person when its trust settings call for it. */
  review(call: McpCallUnderReview): Promise<McpApprovalVerdict>;
}

/** What a restart records for a call it cut off. */
const STOPPED_WHILE_RUNNING = 'Wheelhouse stopped while this MCP tool call ran.';
const STOPPED_WHILE_WAITING = 'Wheelhouse stopped while this MCP tool call waited for approval; it did not run.';

export interface McpCallDeps {
  readonly events: EventLog;
  readonly newId: () => string;
  readonly now: () => number;
  readonly mcp: McpToolCaller;
}

/** Arguments of an MCP tool: a JSON object (its server checks the rest against its own schema). */
const mcpArguments: ArgumentsCheck = {
  check: (input) =>
    !input.json
      ? { ok: false, problem: `not valid JSON: ${input.text.slice(0, 200)}` }
      : typeof input.value !== 'object' || input.value === null || Array.isArray(input.value)
        ? { ok: false, problem: 'arguments must be a JSON object' }
        : { ok: true, value: input.value },
};

/**
 * The ready MCP servers' tools as a source of the tool table, each call an
 * `mcpToolCall` item; rebuilt only when the servers' tools change.
 */
export function mcpTools(deps: McpCallDeps): ToolSource<ActiveTurn> {
  let built: { readonly specs: readonly ModelToolSpec[]; readonly entries: readonly ToolEntry<ActiveTurn>[] } | null = null;
  const entryOf = (spec: ModelToolSpec, ref: McpToolRef): ToolEntry<ActiveTurn> => ({
    spec,
    args: mcpArguments,
    run: (args, invocation) => runMcpToolCall(invocation, ref, args as Record<string, unknown>, deps),
    refuse: async (refusal, invocation) => {
      const message = refusal.kind === 'invalidArguments' ? refusal.message : refusal.kind === 'blocked' ? refusal.text : 'The turn was interrupted before the tool ran.';
      const item = recordMcpItem(invocation, ref, deps);
      return item.complete({ ...item.started, status: 'failed', error: { message } });
    },
  });
  return {
    entries() {
      const specs = deps.mcp.toolSpecs();
      if (built?.specs !== specs) {
        const entries = specs.flatMap((spec) => {
          const ref = deps.mcp.resolveTool(spec.name);
          return ref ? [entryOf(spec, ref)] : [];
        });
        built = { specs, entries };
      }
      return built.entries;
    },
  };
}

/** An `mcpToolCall` item, announced as started; `complete` stores it and answers what the model reads. */
function recordMcpItem(invocation: ToolInvocation<ActiveTurn>, ref: McpToolRef, deps: McpCallDeps) {
  const { turn } = invocation;
  const startedAtMs = deps.now();
  const started: McpToolCallItem = {
    type: 'mcpToolCall',
    id: deps.newId(),
    turnId: turn.id,
    createdAtMs: startedAtMs,
    startedAtMs,
    completedAtMs: null,
    server: ref.server,
    tool: ref.tool,
    status: 'inProgress',
    arguments: invocation.input,
    result: null,
    error: null,
    durationMs: null,
    appContext: null,
    mcpAppResourceUri: null,
    mcpAppUi: null,
    pluginId: null,
    readOnlyHint: deps.mcp.readOnlyHint(ref.server, ref.tool),
  };
  const scope = { threadId: turn.threadId, turnId: turn.id, itemId: started.id, ephemeral: turn.ephemeral };
  turn.liveItems.set(started.id, () => started);
  deps.events.publish('item/started', { threadId: turn.threadId, turnId: turn.id, item: started, startedAtMs }, scope);
  return {
    started,
    complete(ended: McpToolCallItem): ToolResult {
      const completedAtMs = deps.now();
      const final: McpToolCallItem = { ...ended, durationMs: completedAtMs - startedAtMs, completedAtMs };
      deps.events.commit(turn.store, () => {
        turn.store.items.append(turn.threadId, final);
        turn.store.pending.delete(final.id);
        deps.events.publish('item/completed', { threadId: turn.threadId, turnId: turn.id, item: final, completedAtMs, contentTokenCount: null }, scope);
      });
      turn.liveItems.delete(final.id);
      return { success: final.status === 'completed', output: mcpItemOutput(final) };
    },
  };
}

/**
 * Runs one model tool call on an MCP server as an `mcpToolCall` item:
 * started, approval when the server's trust settings call for it, progress
 * messages, completed with the server's result (or failed with why).
 * Failures are items the model reads, never exceptions.
 */
async function runMcpToolCall(invocation: ToolInvocation<ActiveTurn>, ref: McpToolRef, args: Record<string, unknown>, deps: McpCallDeps): Promise<ToolResult> {
  const { turn, permission } = invocation;
  const item = recordMcpItem(invocation, ref, deps);
  const { started } = item;
  // A restart records the call as cut off instead of losing it (turn-recovery moves pending items into the thread).
  const permissionDetails = (requestId: string) => ({ requestId, command: null, reason: `MCP tool "${ref.tool}" of server "${ref.server}"` });
  const ifStopped = (message: string) => turn.store.pending.save('streaming', turn.threadId, { ...started, status: 'failed', error: { message } });
  ifStopped(STOPPED_WHILE_WAITING);
  const verdict = await deps.mcp.review({
    threadId: turn.threadId,
    turnId: turn.id,
    itemId: started.id,
    store: turn.store,
    ephemeral: turn.ephemeral,
    signal: turn.controller.signal,
    server: ref.server,
    tool: ref.tool,
    args,
    hooks: {
      requested: async (requestId) => (await permission.requested(permissionDetails(requestId)))?.text ?? null,
      answered: (requestId, decision) => permission.answered(permissionDetails(requestId), decision),
    },
  });
  if (verdict.run) ifStopped(STOPPED_WHILE_RUNNING);
  return item.complete(verdict.run ? await callServer(turn, ref, args, started, deps) : { ...started, status: 'failed', error: { message: verdict.message } });
}

/** The call itself: the server's result, or why it failed. */
async function callServer(turn: ActiveTurn, ref: McpToolRef, args: Record<string, unknown>, started: McpToolCallItem, deps: McpCallDeps): Promise<McpToolCallItem> {
  const scope = { threadId: turn.threadId, turnId: turn.id, itemId: started.id, ephemeral: true };
  try {
    const result = await deps.mcp.callTool(ref.server, ref.tool, args, {
      signal: turn.controller.signal,
      context: { threadId: turn.threadId, turnId: turn.id },
      onProgress: (message) =>
        deps.events.publish('item/mcpToolCall/progress', { threadId: turn.threadId, turnId: turn.id, itemId: started.id, message }, scope),
    });
    const stored = { content: result.content, structuredContent: result.structuredContent ?? null, _meta: result._meta ?? null };
    return result.isError
      ? { ...started, status: 'failed', result: stored, error: { message: mcpResultText(result) } }
      : { ...started, status: 'completed', result: stored };
  } catch (error) {
    return { ...started, status: 'failed', error: { message: error instanceof Error ? error.message : String(error) } };
  }
}

/** The text the model reads back for a finished MCP call item. */
export function mcpItemOutput(item: McpToolCallItem): string {
  if (item.result) return mcpResultText(item.result);
  if (item.error) return `MCP tool call failed: ${item.error.message}`;
  return 'The tool did not finish (the turn was stopped).';
}
