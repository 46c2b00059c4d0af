import { isToolAllowed, type McpServerConfig } from './mcp-config.js';

export type ToolCallDecision = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/**
 * The one gate every MCP tool call passes, from the agent or from
 * `mcpServer/tool/call`. Today it applies the config: `enabled_tools` and
 * `disabled_tools`. The exec policy and approvals (per-server `trust`, per-tool
 * trust, asking the person) belong here when they exist; `trust` is read from
 * config.toml already and will let a trusted server's calls skip the prompt.
 */
export function authorizeToolCall(config: McpServerConfig, tool: string): ToolCallDecision {
  if (!config.enabled) return { allowed: false, reason: `MCP server "${config.name}" is disabled in config.toml` };
  if (!isToolAllowed(config, tool)) {
    return { allowed: false, reason: `tool "${tool}" of MCP server "${config.name}" is turned off (enabled_tools / disabled_tools)` };
  }
  return { allowed: true };
}
