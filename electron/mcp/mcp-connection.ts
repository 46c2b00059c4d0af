import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type {
  CallToolResult,
  ElicitRequest,
  ElicitResult,
  Implementation,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ProcessSupervisor } from '../exec/index.js';
import type { McpServerConfig } from '../config/mcp-config.js';
import { SupervisedStdioTransport } from './supervised-stdio-transport.js';

/** A listing with more pages than this is cut (a misbehaving server must not loop forever). */
const MAX_LIST_PAGES = 50;

export interface McpCatalog {
  readonly tools: readonly Tool[];
  readonly toolListMeta: unknown;
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplate[];
  readonly serverInfo: Implementation | null;
  readonly capabilities: ServerCapabilities | null;
}

/** Asks the person on the server's behalf; `signal` aborts when the server withdraws the request. */
export type ElicitHandler = (request: ElicitRequest['params'], signal: AbortSignal) => Promise<ElicitResult>;

export interface CallOptions {
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly onProgress?: (message: string) => void;
}

/**
 * One live connection to an MCP server through the official SDK: the child
 * process (stdio) or HTTP session (streamable HTTP), its catalog, calls, and
 * an `onLost` callback when it ends without being asked to.
 */
export class McpConnection {
  private closing = false;

  private constructor(
    private readonly client: Client,
    private readonly transport: Transport,
    readonly catalog: McpCatalog,
  ) {}

  /** Process id of a stdio server (null for HTTP). */
  get pid(): number | null {
    return this.transport instanceof SupervisedStdioTransport ? this.transport.pid : null;
  }

  /**
   * Starts (or connects to) the server, initialises it and reads its catalog
   * within the startup timeout. Rejects with an error a person can act on;
   * nothing is left running on failure.
   */
  static async open(
    config: McpServerConfig,
    supervisor: () => Promise<ProcessSupervisor>,
    signal: AbortSignal,
    onLost: (reason: string) => void,
    onElicit: ElicitHandler,
    clientInfo: { readonly name: string; readonly version: string },
  ): Promise<McpConnection> {
    const { transport, stderrTail } = await createTransport(config, supervisor);
    // URL mode too, as Codex: the person sees the link's host and opens it themselves, or declines.
    const client = new Client({ name: clientInfo.name, version: clientInfo.version }, { capabilities: { elicitation: { form: {}, url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => onElicit(request.params, extra.signal));
    let connection: McpConnection | null = null;
    client.onclose = () => {
      if (connection && !connection.closing) {
        const tail = stderrTail().trim();
        onLost(`the server stopped unexpectedly${tail ? `: ${lastLine(tail)}` : ''}`);
      }
    };
    const timeoutMs = config.startupTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not start within ${timeoutMs / 1000} s (startup_timeout_sec)`)), timeoutMs);
      signal.addEventListener('abort', () => reject(new Error('start-up was cancelled')), { once: true });
    });
    // A late abort after success must not surface as an unhandled rejection.
    deadline.catch(() => undefined);
    try {
      const catalog = await Promise.race([handshake(client, transport, signal), deadline]);
      connection = new McpConnection(client, transport, catalog);
      return connection;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new Error(describeStartFailure(config, error, stderrTail()));
    } finally {
      clearTimeout(timer);
    }
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const result = await this.client.callTool({ name, arguments: args }, undefined, {
      signal: options.signal,
      timeout: options.timeoutMs,
      maxTotalTimeout: options.timeoutMs,
      ...(options.onProgress
        ? {
            onprogress: (progress: { progress: number; total?: number; message?: string }) =>
              options.onProgress?.(
                progress.message ?? (progress.total ? `${progress.progress}/${progress.total}` : String(progress.progress)),
              ),
          }
        : {}),
    });
    return result as CallToolResult;
  }

  async readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    return this.client.readResource({ uri }, { signal });
  }

  /** Ends the session and stops the process (stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.closing = true;
    await this.client.close().catch(() => undefined);
  }

  /** For a synchronous exit: kills a stdio server's process tree now, without waiting. */
  killNow(): void {
    this.closing = true;
    if (this.transport instanceof SupervisedStdioTransport) this.transport.killNow();
    else void this.client.close().catch(() => undefined);
  }
}

async function createTransport(
  config: McpServerConfig,
  supervisor: () => Promise<ProcessSupervisor>,
): Promise<{ transport: Transport; stderrTail: () => string }> {
  const spec = config.transport;
  if (spec.type === 'stdio') {
    const transport = new SupervisedStdioTransport(await supervisor(), spec, config.name);
    return { transport, stderrTail: () => transport.stderrTail() };
  }
  const headers: Record<string, string> = { ...spec.httpHeaders };
  if (spec.bearerTokenEnvVar) {
    const token = process.env[spec.bearerTokenEnvVar];
    if (!token) throw new Error(`the environment variable ${spec.bearerTokenEnvVar} (bearer_token_env_var) is not set`);
    headers.Authorization = `Bearer ${token}`;
  }
  const transport = new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers } });
  return { transport, stderrTail: () => '' };
}

async function handshake(client: Client, transport: Transport, signal: AbortSignal): Promise<McpCatalog> {
  await client.connect(transport, { signal });
  const capabilities = client.getServerCapabilities() ?? null;
  const tools: Tool[] = [];
  let toolListMeta: unknown = null;
  if (capabilities?.tools) {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await client.listTools(cursor ? { cursor } : undefined, { signal });
      if (page === 0) toolListMeta = listed._meta ?? null;
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
  }
  const resources: Resource[] = [];
  const resourceTemplates: ResourceTemplate[] = [];
  if (capabilities?.resources) {
    // A server may list resources badly; its tools are still usable.
    const listed = await client.listResources(undefined, { signal }).catch(() => null);
    if (listed) resources.push(...listed.resources);
    const templates = await client.listResourceTemplates(undefined, { signal }).catch(() => null);
    if (templates) resourceTemplates.push(...templates.resourceTemplates);
  }
  return { tools, toolListMeta, resources, resourceTemplates, serverInfo: client.getServerVersion() ?? null, capabilities };
}

/** A sentence naming what went wrong (command not found, exited with its stderr, timed out). */
function describeStartFailure(config: McpServerConfig, error: unknown, stderr: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  const spec = config.transport;
  // ExecError 'not-found' from the supervisor (resolved on the login PATH), or a raw spawn error.
  if (spec.type === 'stdio' && (code === 'not-found' || code === 'ENOENT')) {
    return `command not found: "${spec.command}" (check command and PATH)`;
  }
  if (spec.type === 'stdio' && code === 'EACCES') return `command is not executable: "${spec.command}"`;
  const message = error instanceof Error ? error.message : String(error);
  const tail = stderr.trim();
  return tail ? `${message}; the server wrote: ${lastLine(tail)}` : message;
}

function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).filter((line) => line.trim().length > 0);
  return (lines.slice(-3).join(' | ') || text).slice(0, 500);
}
