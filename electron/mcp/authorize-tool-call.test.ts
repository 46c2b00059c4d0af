import { describe, expect, it } from 'vitest';
import { mayAsk, needsApproval, type McpToolHints } from './authorize-tool-call.js';
import { mcpServerConfigs, McpServers } from '../config/mcp-config.js';

/** Which agent calls wait for the person, as Codex 0.169 decides it (mcp_tool_call.rs). */
const server = (table: Record<string, unknown> = {}) => mcpServerConfigs(McpServers.parse({ files: { command: 'x', ...table } }))[0]!;
const asking = { approvalPolicy: 'untrusted' as const, sandbox: 'workspace-write' as const };
const readOnly: McpToolHints = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
const localWrite: McpToolHints = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
const destructive: McpToolHints = { readOnlyHint: false, destructiveHint: true, openWorldHint: false };
const readsButDestructive: McpToolHints = { readOnlyHint: true, destructiveHint: true };

describe('needsApproval', () => {
  it('in auto (the default) asks unless the tool says it only reads and is not destructive; no hints asks', () => {
    const config = server();
    expect(config.defaultToolsApprovalMode).toBe('auto');
    expect(needsApproval(config, 't', readOnly, asking)).toBe(false);
    expect(needsApproval(config, 't', localWrite, asking)).toBe(false);
    expect(needsApproval(config, 't', destructive, asking)).toBe(true);
    expect(needsApproval(config, 't', readsButDestructive, asking)).toBe(true);
    expect(needsApproval(config, 't', { readOnlyHint: false }, asking)).toBe(true);
    expect(needsApproval(config, 't', null, asking)).toBe(true);
  });

  it('follows the server default and a tool’s own approval_mode over it', () => {
    const config = server({ default_tools_approval_mode: 'prompt', tools: { safe: { approval_mode: 'approve' }, w: { approval_mode: 'writes' } } });
    expect(needsApproval(config, 'other', readOnly, asking)).toBe(true);
    expect(needsApproval(config, 'safe', destructive, asking)).toBe(false);
    expect(needsApproval(config, 'w', readsButDestructive, asking)).toBe(false);
    expect(needsApproval(config, 'w', localWrite, asking)).toBe(true);
    expect(needsApproval(config, 'w', null, asking)).toBe(true);
  });

  it('never asks in full-access mode; a policy that may not ask refuses instead', () => {
    expect(needsApproval(server({ default_tools_approval_mode: 'prompt' }), 't', null, { approvalPolicy: 'never', sandbox: 'danger-full-access' })).toBe(false);
    expect(needsApproval(server(), 't', null, { approvalPolicy: 'never', sandbox: 'workspace-write' })).toBe(true);
    expect(mayAsk('never')).toBe(false);
    expect(mayAsk('on-request')).toBe(true);
    expect(mayAsk({ granular: { rules: true, sandbox_approval: true, mcp_elicitations: false } })).toBe(false);
  });

  it('refuses an unknown approval mode with the key path', () => {
    const parsed = McpServers.safeParse({ files: { command: 'x', tools: { t: { approval_mode: 'sometimes' } } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['files', 'tools', 't', 'approval_mode']);
  });
});
