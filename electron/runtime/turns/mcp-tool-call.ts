import type { ThreadItem } from '../../../shared/protocol/index.js';
import { mcpResultText } from '../../mcp/mcp-result-text.js';
import type { McpToolRef } from '../../mcp/tool-names.js';
import type { McpCallContext } from '../../mcp/mcp-manager.js';
import type { ModelToolCall } from '../../model/types.js';
import type { EventLog } from '../event-log.js';
import type { ActiveTurn } from './active-turn.js';
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
}

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
    readOnlyHint: null,
  };
  const scope = { threadId: turn.threadId, turnId: turn.id, itemId: started.id, ephemeral: turn.ephemeral };
  deps.events.publish('item/started', { threadId: turn.threadId, turnId: turn.id, item: started, startedAtMs }, scope);
  let completed: McpToolCallItem;
  const hookCall = { name: call.name, callId: call.id, argumentsJson: call.arguments };
  const blocked = argsError === null ? await deps.hooks.preToolUse(hookContextOf(turn), hookCall) : null;
  if (argsError !== null) {
    completed = { ...started, status: 'failed', error: { message: argsError } };
  } else if (blocked) {
    completed = { ...started, status: 'failed', error: { message: blockedText(blocked) } };
  } else {
    try {
      const result = await deps.mcp.callTool(ref.server, ref.tool, args as Record<string, unknown>, {
        signal: turn.controller.signal,
        context: { threadId: turn.threadId, turnId: turn.id },
        onProgress: (message) =>
          deps.events.publish(
            'item/mcpToolCall/progress',
            { threadId: turn.threadId, turnId: turn.id, itemId: started.id, message },
            { ...scope, ephemeral: true },
          ),
      });
      const stored = { content: result.content, structuredContent: result.structuredContent ?? null, _meta: result._meta ?? null };
      completed = result.isError
        ? { ...started, status: 'failed', result: stored, error: { message: mcpResultText(result) } }
        : { ...started, status: 'completed', result: stored };
    } catch (error) {
      completed = { ...started, status: 'failed', error: { message: error instanceof Error ? error.message : String(error) } };
    }
  }
  const completedAtMs = deps.now();
  completed = { ...completed, durationMs: completedAtMs - startedAtMs, completedAtMs };
  if (argsError === null && !blocked) {
    await deps.hooks.postToolUse(hookContextOf(turn), hookCall, { success: completed.status === 'completed', output: mcpItemOutput(completed) });
  }
  turn.store.items.append(turn.threadId, completed);
  deps.events.publish('item/completed', { threadId: turn.threadId, turnId: turn.id, item: completed, completedAtMs, contentTokenCount: null }, scope);
}

/** The text the model reads back for a finished MCP call item. */
export function mcpItemOutput(item: McpToolCallItem): string {
  if (item.result) return mcpResultText(item.result);
  if (item.error) return `MCP tool call failed: ${item.error.message}`;
  return 'The tool did not finish (the turn was stopped).';
}
