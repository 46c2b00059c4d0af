import { isToolAllowed, toolApprovalMode, type McpServerConfig, type McpToolApprovalMode } from '../config/mcp-config.js';

export type ToolCallDecision = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/**
 * The config gate every MCP tool call passes, from the agent or from
 * `mcpServer/tool/call`: the server is enabled and the tool not turned off
 * (`enabled_tools` / `disabled_tools`). Whether the person is asked first is
 * `needsApproval`, for the agent's calls only (a client's own call is the
 * person's doing).
 */
export function authorizeToolCall(config: McpServerConfig, tool: string): ToolCallDecision {
  if (!config.enabled) return { allowed: false, reason: `MCP server "${config.name}" is disabled in config.toml` };
  if (!isToolAllowed(config, tool)) {
    return { allowed: false, reason: `tool "${tool}" of MCP server "${config.name}" is turned off (enabled_tools / disabled_tools)` };
  }
  return { allowed: true };
}

/** MCP tool annotations (hints the server gives; absent ones are unknown). */
export interface McpToolHints {
  readonly readOnlyHint?: boolean | undefined;
  readonly destructiveHint?: boolean | undefined;
  readonly openWorldHint?: boolean | undefined;
}

/**
 * A thread's approval policy as far as MCP calls read it. Declared here, not
 * imported from the runtime's exec policy (electron/runtime/policy/policy-vocabulary.ts,
 * whose AskForApproval fits it), so this layer never imports the runtime.
 */
export type McpApprovalPolicy = 'untrusted' | 'on-failure' | 'on-request' | 'never' | { readonly granular: { readonly mcp_elicitations: boolean; readonly [kind: string]: boolean | undefined } };

/** The thread's settings an approval depends on. */
export interface ThreadApprovalSettings {
  readonly approvalPolicy: McpApprovalPolicy;
  readonly sandbox: 'read-only' | 'workspace-write' | 'danger-full-access';
}

/**
 * Whether an agent's MCP call waits for the person, as Codex decides it: never
 * in full-access mode (approval policy `never` with no sandbox); otherwise by
 * the tool's approval mode: `approve` never asks, `prompt` always, `writes`
 * unless the tool says it only reads, and `auto` (the default) unless it says it
 * only reads and is not destructive, where a tool without hints counts as one
 * that may write and reach the outside world.
 */
export function needsApproval(config: McpServerConfig, tool: string, hints: McpToolHints | null, settings: ThreadApprovalSettings): boolean {
  if (settings.approvalPolicy === 'never' && settings.sandbox === 'danger-full-access') return false;
  return modeNeedsApproval(toolApprovalMode(config, tool), hints);
}

/** Whether the thread's policy lets anyone be asked (`never`, or granular without `mcp_elicitations`, refuses instead). */
export function mayAsk(policy: McpApprovalPolicy): boolean {
  if (policy === 'never') return false;
  return typeof policy === 'string' || policy.granular.mcp_elicitations;
}

function modeNeedsApproval(mode: McpToolApprovalMode, hints: McpToolHints | null): boolean {
  switch (mode) {
    case 'approve':
      return false;
    case 'prompt':
      return true;
    case 'writes':
      return hints?.readOnlyHint !== true;
    case 'auto':
      if (hints?.destructiveHint === true) return true;
      if (hints?.readOnlyHint === true) return false;
      return (hints?.destructiveHint ?? true) || (hints?.openWorldHint ?? true);
  }
}
