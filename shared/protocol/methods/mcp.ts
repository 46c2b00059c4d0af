import { z } from 'zod';
import { defineMethod, defineNotification } from '../define.js';

/**
 * MCP servers (Codex names and shapes): their status and tools, reloading
 * them from config.toml, calling a tool or reading a resource directly, and
 * the per-server start-up updates. Tool calls made by the agent appear as
 * `mcpToolCall` items (see ThreadItem).
 */

/** A tool as the MCP server lists it (Codex v2 Tool). */
export const McpTool = z.object({
  name: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  inputSchema: z.unknown(),
  outputSchema: z.unknown(),
  annotations: z.unknown(),
  icons: z.array(z.unknown()).nullable(),
  _meta: z.unknown(),
});
export type McpTool = z.infer<typeof McpTool>;

export const McpResource = z.object({
  uri: z.string(),
  name: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  mimeType: z.string().nullable(),
  size: z.number().int().nullable(),
  annotations: z.unknown(),
  icons: z.array(z.unknown()).nullable(),
  _meta: z.unknown(),
});

export const McpResourceTemplate = z.object({
  uriTemplate: z.string(),
  name: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  mimeType: z.string().nullable(),
  annotations: z.unknown(),
});

export const McpServerConnectionStatus = z.enum([
  'notStarted',
  'starting',
  'connected',
  'authenticationRequired',
  'failed',
  'cancelled',
  'disabled',
]);
export type McpServerConnectionStatus = z.infer<typeof McpServerConnectionStatus>;

export const McpAuthStatus = z.enum(['unknown', 'unsupported', 'notLoggedIn', 'bearerToken', 'oAuth']);

export const McpServerInfo = z.object({
  name: z.string(),
  version: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  websiteUrl: z.string().nullable(),
  icons: z.array(z.unknown()).nullable(),
});

/** Wheelhouse: a server's config.toml settings for the Connections page (env values are left out: they may be secrets). */
export const McpServerSettings = z.object({
  transport: z.enum(['stdio', 'streamableHttp']),
  command: z.string().nullable(),
  args: z.array(z.string()),
  cwd: z.string().nullable(),
  envKeys: z.array(z.string()),
  url: z.string().nullable(),
  enabled: z.boolean(),
  startupTimeoutSec: z.number(),
  toolTimeoutSec: z.number(),
  enabledTools: z.array(z.string()).nullable(),
  disabledTools: z.array(z.string()),
  /** Codex `default_tools_approval_mode`: when the agent's calls ask the person (auto, prompt, writes, approve). */
  defaultToolsApprovalMode: z.enum(['auto', 'prompt', 'writes', 'approve']),
  /** Per-tool `[mcp_servers.<name>.tools.<tool>] approval_mode` where set. */
  toolApprovalModes: z.record(z.string(), z.enum(['auto', 'prompt', 'writes', 'approve'])),
});
export type McpServerSettings = z.infer<typeof McpServerSettings>;

/** One configured server (Codex McpServerStatus, plus Wheelhouse's `settings`). `toolsError` holds why it is not connected. */
export const McpServerStatus = z.object({
  name: z.string(),
  authStatus: McpAuthStatus,
  httpOrigin: z.string().nullable(),
  pluginId: z.string().nullable(),
  runtimeStatus: McpServerConnectionStatus.nullable(),
  serverInfo: McpServerInfo.nullable(),
  serverCapabilities: z.unknown(),
  /** The tools the agent may call (enabled_tools / disabled_tools applied), by name. */
  tools: z.record(z.string(), McpTool),
  toolListMeta: z.unknown(),
  toolsError: z.string().nullable(),
  resources: z.array(McpResource),
  resourceTemplates: z.array(McpResourceTemplate),
  settings: McpServerSettings,
});
export type McpServerStatus = z.infer<typeof McpServerStatus>;

export const ListMcpServerStatusParams = z.object({
  cursor: z.string().max(20).nullable().optional(),
  limit: z.number().int().min(0).max(10_000).nullable().optional(),
  detail: z.enum(['full', 'toolsAndAuthOnly']).nullable().optional(),
  serverName: z.string().min(1).max(64).nullable().optional(),
  threadId: z.string().nullable().optional(),
});

export const ListMcpServerStatusResult = z.object({
  data: z.array(McpServerStatus),
  nextCursor: z.string().nullable(),
});

export const McpServerToolCallParams = z.object({
  server: z.string().min(1).max(64),
  tool: z.string().min(1).max(256),
  threadId: z.string().min(1),
  arguments: z.unknown().optional(),
  _meta: z.unknown().optional(),
});

/** A tool's result as the MCP server sent it (content blocks: text, image, audio, resource_link, resource). */
export const McpServerToolCallResult = z.object({
  content: z.array(z.unknown()),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().nullable(),
  _meta: z.unknown().optional(),
});

export const McpResourceReadParams = z.object({
  server: z.string().min(1).max(64),
  uri: z.string().min(1).max(8192),
  threadId: z.string().nullable().optional(),
  connectorId: z.string().nullable().optional(),
  originCallId: z.string().nullable().optional(),
  target: z.unknown().optional(),
  _meta: z.record(z.string(), z.unknown()).nullable().optional(),
});

export const McpResourceContent = z.union([
  z.object({ uri: z.string(), mimeType: z.string().nullable(), text: z.string(), _meta: z.unknown().optional() }),
  z.object({ uri: z.string(), mimeType: z.string().nullable(), blob: z.string(), _meta: z.unknown().optional() }),
]);

export const McpResourceReadResult = z.object({
  contents: z.array(McpResourceContent),
  originCallId: z.string().nullable(),
});

export const McpServerStartupState = z.enum(['starting', 'ready', 'failed', 'cancelled']);
export type McpServerStartupState = z.infer<typeof McpServerStartupState>;

/** Codex McpServerStatusUpdatedNotification; `error` says why a server failed. */
export const McpServerStartupStatusUpdated = z.object({
  name: z.string(),
  status: McpServerStartupState,
  error: z.string().nullable(),
  failureReason: z.literal('reauthenticationRequired').nullable(),
  threadId: z.string().nullable(),
});
export type McpServerStartupStatusUpdated = z.infer<typeof McpServerStartupStatusUpdated>;

/** Wheelhouse (seed 000 McpStartupComplete): one summary after every server of a start-up round settled. */
export const McpServerStartupCompleted = z.object({
  ready: z.array(z.string()),
  failed: z.array(z.object({ name: z.string(), error: z.string() })),
  cancelled: z.array(z.string()),
});
export type McpServerStartupCompleted = z.infer<typeof McpServerStartupCompleted>;

export const McpToolCallProgress = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  message: z.string(),
});

export const mcpMethods = {
  'mcpServerStatus/list': defineMethod(
    ListMcpServerStatusParams,
    ListMcpServerStatusResult,
    'List configured MCP servers with their state, tools and resources.',
  ),
  'config/mcpServer/reload': defineMethod(
    z.object({}),
    z.object({}),
    'Re-read [mcp_servers] from config.toml and start, stop or restart servers to match.',
  ),
  'mcpServer/tool/call': defineMethod(McpServerToolCallParams, McpServerToolCallResult, "Call an MCP server's tool directly."),
  'mcpServer/resource/read': defineMethod(McpResourceReadParams, McpResourceReadResult, "Read one of an MCP server's resources."),
  'mcpServer/restart': defineMethod(
    z.object({ name: z.string().min(1).max(64) }),
    z.object({}),
    'Wheelhouse: stop and start one MCP server again (Connections page).',
  ),
} as const;

export const mcpNotifications = {
  'mcpServer/startupStatus/updated': defineNotification(
    McpServerStartupStatusUpdated,
    'An MCP server is starting, ready, failed or cancelled.',
  ),
  'mcpServer/startupStatus/completed': defineNotification(
    McpServerStartupCompleted,
    'Wheelhouse: every MCP server of a start-up round has settled.',
  ),
  'item/mcpToolCall/progress': defineNotification(McpToolCallProgress, 'Progress message of a running MCP tool call.'),
} as const;
