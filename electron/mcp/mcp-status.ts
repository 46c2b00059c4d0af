import type { McpServerConnectionStatus, McpServerStatus, McpTool } from '../../shared/protocol/index.js';
import { isToolAllowed } from '../config/mcp-config.js';
import type { McpServerSlot, McpSlotState } from './mcp-manager.js';

const RUNTIME_STATUS: Record<McpSlotState, McpServerConnectionStatus> = {
  starting: 'starting',
  ready: 'connected',
  failed: 'failed',
  cancelled: 'cancelled',
  disabled: 'disabled',
};

/** One server in Codex's McpServerStatus shape; `toolsError` says why a server is not connected. */
export function serverStatus(slot: McpServerSlot, detail: 'full' | 'toolsAndAuthOnly'): McpServerStatus {
  const catalog = slot.connection?.catalog ?? null;
  const transport = slot.config.transport;
  const tools: Record<string, McpTool> = {};
  for (const tool of catalog?.tools ?? []) {
    if (!isToolAllowed(slot.config, tool.name)) continue;
    tools[tool.name] = {
      name: tool.name,
      title: tool.title ?? null,
      description: tool.description ?? null,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema ?? null,
      annotations: tool.annotations ?? null,
      icons: (tool.icons as unknown[] | undefined) ?? null,
      _meta: tool._meta ?? null,
    };
  }
  const full = detail === 'full';
  return {
    name: slot.config.name,
    authStatus: transport.type === 'streamableHttp' && transport.bearerTokenEnvVar ? 'bearerToken' : 'unsupported',
    httpOrigin: transport.type === 'streamableHttp' ? new URL(transport.url).origin : null,
    pluginId: null,
    runtimeStatus: RUNTIME_STATUS[slot.state],
    serverInfo: catalog?.serverInfo
      ? {
          name: catalog.serverInfo.name,
          version: catalog.serverInfo.version,
          title: catalog.serverInfo.title ?? null,
          description: (catalog.serverInfo as { description?: string }).description ?? null,
          websiteUrl: catalog.serverInfo.websiteUrl ?? null,
          icons: (catalog.serverInfo.icons as unknown[] | undefined) ?? null,
        }
      : null,
    serverCapabilities: catalog?.capabilities ?? null,
    tools,
    toolListMeta: catalog?.toolListMeta ?? null,
    toolsError: slot.state === 'ready' ? null : (slot.error ?? null),
    resources: full
      ? (catalog?.resources ?? []).map((resource) => ({
          uri: resource.uri,
          name: resource.name,
          title: resource.title ?? null,
          description: resource.description ?? null,
          mimeType: resource.mimeType ?? null,
          size: (resource as { size?: number }).size ?? null,
          annotations: resource.annotations ?? null,
          icons: (resource.icons as unknown[] | undefined) ?? null,
          _meta: resource._meta ?? null,
        }))
      : [],
    resourceTemplates: full
      ? (catalog?.resourceTemplates ?? []).map((template) => ({
          uriTemplate: template.uriTemplate,
          name: template.name,
          title: template.title ?? null,
          description: template.description ?? null,
          mimeType: template.mimeType ?? null,
          annotations: template.annotations ?? null,
        }))
      : [],
    settings: {
      transport: transport.type,
      command: transport.type === 'stdio' ? transport.command : null,
      args: transport.type === 'stdio' ? [...transport.args] : [],
      cwd: transport.type === 'stdio' ? transport.cwd : null,
      envKeys: transport.type === 'stdio' ? Object.keys(transport.env).sort() : [],
      url: transport.type === 'streamableHttp' ? transport.url : null,
      enabled: slot.config.enabled,
      startupTimeoutSec: slot.config.startupTimeoutMs / 1000,
      toolTimeoutSec: slot.config.toolTimeoutMs / 1000,
      enabledTools: slot.config.enabledTools ? [...slot.config.enabledTools] : null,
      disabledTools: [...slot.config.disabledTools],
      defaultToolsApprovalMode: slot.config.defaultToolsApprovalMode,
      toolApprovalModes: { ...slot.config.toolApprovalModes },
    },
  };
}
