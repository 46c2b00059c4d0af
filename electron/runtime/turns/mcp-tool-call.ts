import type { ThreadItem } from '../../../shared/protocol/index.js';
import { mcpResultText } from '../../mcp/mcp-result-text.js';
import type { McpToolRef } from '../../mcp/tool-names.js';
import type { McpCallContext } from '../../mcp/mcp-manager.js';
import type { McpApprovalVerdict, McpCallUnderReview } from '../../mcp/mcp-tool-approval.js';
import type { ModelToolCall } from '../../model/types.js';
import type { EventLog } from '../event-log.js';
import type { ActiveTurn } from '../active-turn.js';
import { blockedText, type HookDispatcher } from '../hooks/hook-dispatcher.js';
import { hookContextOf } from '../hooks/turn-hooks.js';

type McpToolCallItem = Extract<ThreadItem, { type: 'mcpToolCall' }>;

/** What the turn runner needs of the MCP manager. */
export interface McpToolCaller {
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
  readonly hooks: HookDispatcher;
}

/**
 * Runs one model tool call on an MCP server as an `mcpToolCall` item:
 * started, progress messages, completed with the server's result (or failed
 * with why). Failures are items the model reads, never exceptions.
 */
export async function runMcpToolCall(turn: ActiveTurn, call: ModelToolCall, ref: McpToolRef, deps: McpCallDeps): Promise<void> {
  const startedAtMs = deps.now();
  let args: unknown = call.arguments;
  let argsError: string | null = null;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    if (typeof args !== 'object' || args === null || Array.isArray(args)) argsError = 'arguments must be a JSON object';
  } catch {
    argsError = `arguments are not valid JSON: ${call.arguments.slice(0, 200)}`;
  }
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
    arguments: args,
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
  let completed: McpToolCallItem;
  const hookCall = { name: call.name, callId: call.id, argumentsJson: call.arguments };
  const blocked = argsError === null ? await deps.hooks.preToolUse(hookContextOf(turn), hookCall) : null;
  if (argsError !== null) {
    completed = { ...started, status: 'failed', error: { message: argsError } };
  } else if (blocked) {
    completed = { ...started, status: 'failed', error: { message: blockedText(blocked) } };
  } else {
    // A restart records the call as cut off instead of losing it (turn-recovery moves pending items into the thread).
    const approvalHookDetails = (requestId: string) => ({ requestId, toolName: call.name, command: null, reason: `MCP tool "${ref.tool}" of server "${ref.server}"` });
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
      args: args as Record<string, unknown>,
      hooks: {
        requested: async (requestId) => {
          const refused = await deps.hooks.approvalRequested(hookContextOf(turn), approvalHookDetails(requestId));
          return refused ? blockedText(refused) : null;
        },
        answered: (requestId, decision) => deps.hooks.approvalAnswered(hookContextOf(turn), approvalHookDetails(requestId), decision),
      },
    });
    if (verdict.run) ifStopped(STOPPED_WHILE_RUNNING);
    completed = verdict.run
      ? await callServer(turn, ref, args as Record<string, unknown>, started, deps)
      : { ...started, status: 'failed', error: { message: verdict.message } };
  }
  const completedAtMs = deps.now();
  completed = { ...completed, durationMs: completedAtMs - startedAtMs, completedAtMs };
  if (argsError === null && !blocked) {
    await deps.hooks.postToolUse(hookContextOf(turn), hookCall, { success: completed.status === 'completed', output: mcpItemOutput(completed) });
  }
  const final = completed;
  deps.events.commit(turn.store, () => {
    turn.store.items.append(turn.threadId, final);
    turn.store.pending.delete(final.id);
    deps.events.publish('item/completed', { threadId: turn.threadId, turnId: turn.id, item: final, completedAtMs, contentTokenCount: null }, scope);
  });
  turn.liveItems.delete(final.id);
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
