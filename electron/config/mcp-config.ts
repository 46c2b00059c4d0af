import { z } from 'zod';

/**
 * `[mcp_servers.<name>]` in config.toml, exactly as Codex reads it: a stdio
 * server (`command`, `args`, `env`, `env_vars`, `cwd`) or a streamable HTTP server
 * (`url`, `bearer_token_env_var`, `http_headers`), with the shared
 * `startup_timeout_sec`, `tool_timeout_sec`, `enabled`, `enabled_tools` and
 * `disabled_tools`, and Codex's approval settings: `default_tools_approval_mode`
 * for every tool of the server and `[mcp_servers.<name>.tools.<tool>]`
 * `approval_mode` for one tool (`auto`, `prompt`, `writes`, `approve`).
 */

/** A server name as it appears in `[mcp_servers.<name>]` (Codex: letters, digits, `-`, `_`). */
export const McpServerName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'MCP server name may contain only letters, digits, "-" and "_"');

const EnvVarName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name (letters, digits and "_")');

const Seconds = z.number().positive('must be more than 0').max(86_400);

const HttpUrl = z.string().refine((text) => {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an http:// or https:// URL');

/**
 * Codex AppToolApproval: `auto` asks unless the tool says it only reads
 * (annotations), `prompt` always asks, `writes` asks unless `readOnlyHint`,
 * `approve` never asks (the person trusts it).
 */
export const McpToolApprovalMode = z.enum(['auto', 'prompt', 'writes', 'approve']);
export type McpToolApprovalMode = z.infer<typeof McpToolApprovalMode>;

/** `[mcp_servers.<name>.tools.<tool>]`. Unknown keys pass through. */
const McpToolTable = z.looseObject({ approval_mode: McpToolApprovalMode.optional() });

/** One `[mcp_servers.<name>]` table. Unknown keys pass through (kept as written). */
export const McpServerTable = z
  .looseObject({
    command: z.string().min(1).max(4096).optional(),
    args: z.array(z.string().max(32_768)).max(1_000).optional(),
    env: z.record(EnvVarName, z.string()).optional(),
    /** Variables passed on from Wheelhouse's environment; the only way a provider key reaches the server unwritten. */
    env_vars: z.array(EnvVarName).max(200).optional(),
    cwd: z.string().min(1).max(4096).optional(),
    url: HttpUrl.optional(),
    bearer_token_env_var: EnvVarName.optional(),
    http_headers: z.record(z.string().min(1), z.string()).optional(),
    startup_timeout_sec: Seconds.optional(),
    tool_timeout_sec: Seconds.optional(),
    enabled: z.boolean().optional(),
    enabled_tools: z.array(z.string().min(1)).optional(),
    disabled_tools: z.array(z.string().min(1)).optional(),
    default_tools_approval_mode: McpToolApprovalMode.optional(),
    tools: z.record(z.string().min(1), McpToolTable).optional(),
  })
  .superRefine((table, ctx) => {
    if (table.command === undefined && table.url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'is required (or set url for a streamable HTTP server)' });
    }
    if (table.command !== undefined && table.url !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'cannot be set together with command; choose one transport' });
    }
  });
export type McpServerTable = z.infer<typeof McpServerTable>;

export const McpServers = z.record(McpServerName, McpServerTable);

export const DEFAULT_STARTUP_TIMEOUT_SEC = 10;
export const DEFAULT_TOOL_TIMEOUT_SEC = 60;

export type McpTransportConfig =
  | {
      readonly type: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      /** `env_vars`: variables the server inherits even when they hold secrets (provider keys). */
      readonly envVars: readonly string[];
      readonly cwd: string | null;
    }
  | {
      readonly type: 'streamableHttp';
      readonly url: string;
      readonly bearerTokenEnvVar: string | null;
      readonly httpHeaders: Readonly<Record<string, string>>;
    };

/** A server's settings with defaults applied. */
export interface McpServerConfig {
  readonly name: string;
  readonly transport: McpTransportConfig;
  readonly enabled: boolean;
  readonly startupTimeoutMs: number;
  readonly toolTimeoutMs: number;
  /** null: every tool the server lists (minus disabledTools). */
  readonly enabledTools: readonly string[] | null;
  readonly disabledTools: readonly string[];
  /** `default_tools_approval_mode` (Codex's default: auto). */
  readonly defaultToolsApprovalMode: McpToolApprovalMode;
  /** Per-tool `approval_mode` where set. */
  readonly toolApprovalModes: Readonly<Record<string, McpToolApprovalMode>>;
}

/** The servers of a validated config document, sorted by name. */
export function mcpServerConfigs(tables: Readonly<Record<string, McpServerTable>> | undefined): McpServerConfig[] {
  return Object.entries(tables ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, table]) => toServerConfig(name, table));
}

function toServerConfig(name: string, table: McpServerTable): McpServerConfig {
  const transport: McpTransportConfig =
    table.url !== undefined
      ? {
          type: 'streamableHttp',
          url: table.url,
          bearerTokenEnvVar: table.bearer_token_env_var ?? null,
          httpHeaders: table.http_headers ?? {},
        }
      : {
          type: 'stdio',
          command: table.command ?? '',
          args: table.args ?? [],
          env: table.env ?? {},
          envVars: table.env_vars ?? [],
          cwd: table.cwd ?? null,
        };
  return {
    name,
    transport,
    enabled: table.enabled ?? true,
    startupTimeoutMs: Math.round((table.startup_timeout_sec ?? DEFAULT_STARTUP_TIMEOUT_SEC) * 1000),
    toolTimeoutMs: Math.round((table.tool_timeout_sec ?? DEFAULT_TOOL_TIMEOUT_SEC) * 1000),
    enabledTools: table.enabled_tools ?? null,
    disabledTools: table.disabled_tools ?? [],
    defaultToolsApprovalMode: table.default_tools_approval_mode ?? 'auto',
    toolApprovalModes: Object.fromEntries(
      Object.entries(table.tools ?? {}).flatMap(([tool, settings]) => (settings.approval_mode ? [[tool, settings.approval_mode]] : [])),
    ),
  };
}

/** Whether a server's tool may be offered and called under its config. */
export function isToolAllowed(config: McpServerConfig, tool: string): boolean {
  if (config.disabledTools.includes(tool)) return false;
  return config.enabledTools === null || config.enabledTools.includes(tool);
}

/** The approval mode of one tool: its own `approval_mode`, else the server's default. */
export function toolApprovalMode(config: McpServerConfig, tool: string): McpToolApprovalMode {
  return config.toolApprovalModes[tool] ?? config.defaultToolsApprovalMode;
}
