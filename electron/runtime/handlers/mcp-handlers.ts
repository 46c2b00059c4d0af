import { RpcError, type mcpMethods } from '../../../shared/protocol/index.js';
import { McpCallError, type McpManager } from '../../mcp/mcp-manager.js';
import { serverStatus } from '../../mcp/mcp-status.js';
import type { HandlerTable } from './handler-table.js';

export type McpHandlers = HandlerTable<typeof mcpMethods>;

const DEFAULT_PAGE = 100;
/** How long `mcpServer/resource/read` may take. */
const RESOURCE_READ_TIMEOUT_MS = 60_000;

/** The mcpServer* handlers, over one manager; `requireThread` throws for an unknown thread. */
export function mcpHandlers(manager: McpManager, requireThread: (threadId: string) => void): McpHandlers {
  return {
    'mcpServerStatus/list': async (params) => {
      if (params.serverName && !manager.servers().some((slot) => slot.config.name === params.serverName)) {
        throw RpcError.invalidRequest(`no MCP server named "${params.serverName}"`);
      }
      // As Codex: a server still starting is listed once its start settles, with its catalog or its error.
      await manager.startsSettled(params.serverName ? [params.serverName] : undefined);
      const all = manager.servers().filter((slot) => !params.serverName || slot.config.name === params.serverName);
      const offset = params.cursor ? Number.parseInt(params.cursor, 10) : 0;
      if (!Number.isSafeInteger(offset) || offset < 0) throw RpcError.invalidParams(`invalid cursor: ${params.cursor}`);
      const limit = params.limit ?? DEFAULT_PAGE;
      const page = all.slice(offset, offset + limit);
      const next = offset + page.length;
      return {
        data: page.map((slot) => serverStatus(slot, params.detail ?? 'full')),
        nextCursor: next < all.length && page.length > 0 ? String(next) : null,
      };
    },
    'config/mcpServer/reload': () => {
      // Answers at once; the servers report their progress in mcpServer/startupStatus/updated.
      void manager.reload();
      return {};
    },
    'mcpServer/restart': (params) => {
      const slot = manager.servers().find((candidate) => candidate.config.name === params.name);
      if (!slot) throw RpcError.invalidRequest(`no MCP server named "${params.name}" in config.toml`);
      if (!slot.config.enabled) throw RpcError.invalidRequest(`MCP server "${params.name}" is disabled; enable it first`);
      // Answers at once; progress arrives as mcpServer/startupStatus/updated.
      void manager.restart(params.name).catch(() => undefined);
      return {};
    },
    'mcpServer/tool/call': async (params) => {
      requireThread(params.threadId);
      const args = params.arguments ?? {};
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        throw RpcError.invalidParams('arguments must be a JSON object');
      }
      try {
        const result = await manager.callTool(params.server, params.tool, args as Record<string, unknown>, {
          signal: AbortSignal.timeout(24 * 60 * 60 * 1000),
          context: { threadId: params.threadId, turnId: null },
        });
        return {
          content: result.content,
          structuredContent: result.structuredContent ?? null,
          isError: result.isError ?? null,
          _meta: result._meta ?? null,
        };
      } catch (error) {
        throw asRpcError(error);
      }
    },
    'mcpServer/resource/read': async (params) => {
      if (params.threadId) requireThread(params.threadId);
      try {
        const result = await manager.readResource(params.server, params.uri, AbortSignal.timeout(RESOURCE_READ_TIMEOUT_MS));
        return {
          contents: result.contents.map((content) =>
            'text' in content && typeof content.text === 'string'
              ? { uri: content.uri, mimeType: content.mimeType ?? null, text: content.text }
              : { uri: content.uri, mimeType: content.mimeType ?? null, blob: String((content as { blob?: string }).blob ?? '') },
          ),
          originCallId: null,
        };
      } catch (error) {
        throw asRpcError(error);
      }
    },
  };
}

function asRpcError(error: unknown): unknown {
  return error instanceof McpCallError ? RpcError.invalidRequest(error.message) : error;
}
