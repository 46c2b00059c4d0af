import {
  McpElicitationSchema,
  type McpServerElicitationRequestParams,
  type McpServerStartupCompleted,
  type McpServerStartupStatusUpdated,
} from '../../shared/protocol/index.js';
import type { ModelToolSpec } from '../model/types.js';
import { authorizeToolCall } from './authorize-tool-call.js';
import { CallClock } from './call-clock.js';
import type { McpServerConfig } from '../config/mcp-config.js';
import type { CallOptions, ElicitHandler, McpConnection } from './mcp-connection.js';
import type { ElicitationAnswer } from './elicitation-broker.js';
import type { McpToolFacts } from './mcp-tool-approval.js';
import { assignModelToolNames, type McpToolRef } from './tool-names.js';
import { isToolAllowed } from '../config/mcp-config.js';

export type McpSlotState = 'starting' | 'ready' | 'failed' | 'cancelled' | 'disabled';

/** What the manager knows of one configured server. */
export interface McpServerSlot {
  config: McpServerConfig;
  state: McpSlotState;
  error: string | null;
  connection: McpConnection | null;
  generation: number;
  abort: AbortController | null;
  restartTimer: ReturnType<typeof setTimeout> | null;
  restartAttempts: number;
  readyAtMs: number;
  /** The start under way (settles ready, failed or cancelled within the server's startup timeout); null when none is. */
  starting: Promise<unknown> | null;
}

export interface McpManagerOptions {
  /** The `[mcp_servers]` of config.toml as it is now. */
  readonly readConfigs: () => readonly McpServerConfig[];
  readonly onStatus: (update: McpServerStartupStatusUpdated) => void;
  readonly onStartupCompleted: (summary: McpServerStartupCompleted) => void;
  /**
   * The runtime's one process supervisor: stdio servers start from the user's
   * login-shell environment (resolved once and cached; their `env` is laid
   * over it), are logged with every other child, and die with the app.
   */
  readonly supervisor: Supervisor;
  /** What Wheelhouse calls itself to servers (`initialize`'s clientInfo): its name and version. */
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Delay before restart attempt n (0-based) of a server that died. Default 1 s doubling to 30 s. */
  readonly restartDelayMs?: (attempt: number) => number;
  readonly now?: () => number;
  /** Asks the person for a server's elicitation (every client; first answer wins). Without it, servers get `cancel`. */
  readonly elicit?: (params: McpServerElicitationRequestParams, signal: AbortSignal) => Promise<ElicitationAnswer>;
}

/** The thread (and turn) a tool call runs for: an elicitation during the call is shown there. */
export interface McpCallContext {
  readonly threadId: string;
  readonly turnId: string | null;
}

/** A call that could not be made or did not finish (unknown server, not ready, turned off, timeout, crash). */
export class McpCallError extends Error {}

/** setTimeout's longest delay: the SDK's own call timer, which CallClock makes moot. */
const MAX_TIMER_MS = 0x7fffffff;

/** A server that stayed up this long is restarted without the backoff it had built up. */
const STABLE_UPTIME_MS = 60_000;

type ConnectionModule = typeof import('./mcp-connection.js');
let connectionModule: Promise<ConnectionModule> | undefined;
/** The SDK is loaded only when a server is configured, so start-up without MCP pays nothing for it. */
const loadConnectionModule = () => (connectionModule ??= import('./mcp-connection.js'));
type Supervisor = import('../exec/index.js').ProcessSupervisor;

/**
 * Runs the configured MCP servers: starts every enabled one in parallel (a
 * slow or broken one never holds up the others), reports each state change,
 * restarts a server that dies with backoff, offers the ready servers' tools to
 * the model under stable names, and stops every process on close.
 */
export class McpManager {
  private readonly slots = new Map<string, McpServerSlot>();
  private readonly pending = new Set<Promise<unknown>>();
  private toolCache: { specs: ModelToolSpec[]; byName: Map<string, McpToolRef> } | null = null;
  private closed = false;
  private readonly now: () => number;
  /** Calls in flight per server, newest last: an elicitation belongs to the newest one's thread. */
  private readonly callsInFlight = new Map<string, Array<{ readonly context: McpCallContext; readonly clock: CallClock }>>();

  constructor(private readonly options: McpManagerOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Matches the running servers to config: starts new and changed ones (and
   * ones that had failed), stops removed and disabled ones. Resolves with the
   * summary of the servers it started, once each is ready, failed or cancelled.
   */
  reload(): Promise<McpServerStartupCompleted> {
    if (this.closed) return Promise.resolve({ ready: [], failed: [], cancelled: [] });
    const configs = this.options.readConfigs();
    const wanted = new Map(configs.map((config) => [config.name, config]));
    for (const [name, slot] of this.slots) {
      if (!wanted.has(name)) {
        this.stop(slot);
        this.slots.delete(name);
      }
    }
    const toStart: McpServerSlot[] = [];
    for (const config of configs) {
      let slot = this.slots.get(config.name);
      if (!slot) {
        slot = { config, state: 'disabled', error: null, connection: null, generation: 0, abort: null, restartTimer: null, restartAttempts: 0, readyAtMs: 0, starting: null };
        this.slots.set(config.name, slot);
      }
      const mustRestart = needsRestart(slot.config, config) || slot.state === 'failed' || slot.state === 'cancelled' || slot.state === 'disabled';
      slot.config = config;
      if (!config.enabled) {
        this.stop(slot);
        slot.state = 'disabled';
        slot.error = null;
      } else if (mustRestart) {
        toStart.push(slot);
      }
    }
    this.toolCache = null;
    return this.round(toStart);
  }

  /**
   * Resolves when every server that is starting now has settled (ready, failed or cancelled), so a
   * status listing can answer as Codex does: each server with its catalog, or with why it has none.
   * Each start ends within its startup timeout; the wait is also bounded by the longest of those,
   * counted from now, in case a start is held up before its own clock begins.
   */
  async startsSettled(names?: readonly string[]): Promise<void> {
    const starting = [...this.slots.values()].filter((slot) => slot.starting && (!names || names.includes(slot.config.name)));
    if (starting.length === 0) return;
    const boundMs = Math.max(...starting.map((slot) => slot.config.startupTimeoutMs));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
      timer.unref?.();
    });
    try {
      await Promise.race([Promise.allSettled(starting.map((slot) => slot.starting)), bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops and starts one server again (the Connections page's restart). */
  async restart(name: string): Promise<McpServerStartupCompleted> {
    const slot = this.slots.get(name);
    if (!slot) throw new McpCallError(`no MCP server named "${name}" in config.toml`);
    if (!slot.config.enabled) throw new McpCallError(`MCP server "${name}" is disabled; enable it first`);
    return this.round([slot]);
  }

  /**
   * A server's elicitations go to the person in the thread of its newest call
   * in flight; one that arrives outside any call has no thread to appear in
   * and is cancelled with the reason.
   */
  private elicitHandler(serverName: string): ElicitHandler {
    return async (request, signal) => {
      const call = this.callsInFlight.get(serverName)?.at(-1);
      const context = call?.context;
      const elicit = this.options.elicit;
      if (!call || !context || !elicit) {
        const why = !context ? 'no tool call of this server is running, so there is no thread to ask in' : 'elicitation is not available';
        return { action: 'cancel', _meta: { 'wheelhouse/reason': why } };
      }
      if (request.mode === 'url') {
        // Only what the app's external-link path opens is offered: an https page without credentials in the link.
        const refusal = urlRefusal(request.url);
        if (refusal) return { action: 'decline', _meta: { 'wheelhouse/reason': `the link was not offered to the person: ${refusal}` } };
        const params: McpServerElicitationRequestParams = {
          serverName,
          threadId: context.threadId,
          turnId: context.turnId,
          mode: 'url',
          message: request.message,
          url: request.url,
          elicitationId: request.elicitationId,
          ...(request._meta ? { _meta: request._meta } : {}),
        };
        return this.askWithClockPaused(call.clock, () => elicit(params, signal));
      }
      const schema = McpElicitationSchema.safeParse(request.requestedSchema);
      if (!schema.success) {
        return { action: 'decline', _meta: { 'wheelhouse/reason': `the requested form is not a flat MCP elicitation schema: ${schema.error.issues[0]?.message ?? ''}` } };
      }
      const params: McpServerElicitationRequestParams = {
        serverName,
        threadId: context.threadId,
        turnId: context.turnId,
        mode: 'form',
        message: request.message,
        requestedSchema: schema.data,
        ...(request._meta ? { _meta: request._meta } : {}),
      };
      return this.askWithClockPaused(call.clock, () => elicit(params, signal));
    };
  }

  /** The person's time to answer does not count against the call's tool_timeout_sec. */
  private async askWithClockPaused<T>(clock: CallClock, ask: () => Promise<T>): Promise<T> {
    clock.pause();
    try {
      return await ask();
    } finally {
      clock.resume();
    }
  }

  /** A configured server's settings and what its listing says of one tool (null facts: not listed, or not ready). */
  lookupTool(server: string, tool: string): { config: McpServerConfig; facts: McpToolFacts | null } | null {
    const slot = this.slots.get(server);
    if (!slot) return null;
    const listed = slot.connection?.catalog.tools.find((candidate) => candidate.name === tool);
    if (!listed) return { config: slot.config, facts: null };
    const hints = listed.annotations ?? null;
    return {
      config: slot.config,
      facts: {
        hints: hints && { readOnlyHint: hints.readOnlyHint, destructiveHint: hints.destructiveHint, openWorldHint: hints.openWorldHint },
        title: listed.title ?? hints?.title ?? null,
        description: listed.description ?? null,
      },
    };
  }

  servers(): readonly McpServerSlot[] {
    return [...this.slots.values()];
  }

  /**
   * The ready servers' allowed tools, sorted by model name. The same array is
   * returned until a server's state or tools change, so requests stay
   * byte-identical and provider prompt caches keep hitting.
   */
  toolSpecs(): readonly ModelToolSpec[] {
    return this.tools().specs;
  }

  /** Which server tool a model-facing name stands for. */
  resolveTool(modelName: string): McpToolRef | null {
    return this.tools().byName.get(modelName) ?? null;
  }

  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: Omit<CallOptions, 'timeoutMs'> & { readonly context: McpCallContext },
  ) {
    const slot = this.slots.get(server);
    if (!slot) throw new McpCallError(`no MCP server named "${server}" in config.toml`);
    const decision = authorizeToolCall(slot.config, tool);
    if (!decision.allowed) throw new McpCallError(decision.reason);
    const connection = slot.connection;
    if (slot.state !== 'ready' || !connection) {
      throw new McpCallError(`MCP server "${server}" is not ready (${slot.state}${slot.error ? `: ${slot.error}` : ''})`);
    }
    const calls = this.callsInFlight.get(server) ?? [];
    this.callsInFlight.set(server, calls);
    const call = { context: options.context, clock: new CallClock(slot.config.toolTimeoutMs, this.now) };
    calls.push(call);
    try {
      // The clock, not the SDK's own timer, enforces tool_timeout_sec: it stands still while the server waits for the person.
      const signal = AbortSignal.any([options.signal, call.clock.signal]);
      return await connection.callTool(tool, args, { ...options, signal, timeoutMs: MAX_TIMER_MS });
    } catch (error) {
      if (call.clock.expired) throw new McpCallError(`the MCP tool did not answer within ${slot.config.toolTimeoutMs / 1000} s (tool_timeout_sec)`);
      throw new McpCallError(describeCallFailure(slot, error));
    } finally {
      call.clock.stop();
      calls.splice(calls.indexOf(call), 1);
    }
  }

  async readResource(server: string, uri: string, signal: AbortSignal) {
    const slot = this.slots.get(server);
    if (!slot) throw new McpCallError(`no MCP server named "${server}" in config.toml`);
    if (slot.state !== 'ready' || !slot.connection) throw new McpCallError(`MCP server "${server}" is not ready (${slot.state})`);
    try {
      return await slot.connection.readResource(uri, signal);
    } catch (error) {
      throw new McpCallError(`reading ${uri} from "${server}" failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Stops every server and waits until their processes are gone. */
  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots.values()) this.stop(slot);
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** For a synchronous exit: signals every server process at once. */
  killNow(): void {
    this.closed = true;
    for (const slot of this.slots.values()) {
      if (slot.restartTimer) clearTimeout(slot.restartTimer);
      slot.abort?.abort();
      slot.connection?.killNow();
      slot.connection = null;
    }
  }

  private round(slots: readonly McpServerSlot[]): Promise<McpServerStartupCompleted> {
    const outcomes = slots.map((slot) => this.start(slot).then((state) => ({ slot, state })));
    return Promise.all(outcomes).then((settled) => {
      const summary: McpServerStartupCompleted = { ready: [], failed: [], cancelled: [] };
      for (const { slot, state } of settled) {
        if (state === 'ready') summary.ready.push(slot.config.name);
        else if (state === 'failed') summary.failed.push({ name: slot.config.name, error: slot.error ?? 'failed' });
        else if (state === 'cancelled') summary.cancelled.push(slot.config.name);
      }
      if (slots.length > 0) this.options.onStartupCompleted(summary);
      return summary;
    });
  }

  /** Starts one server; resolves with how that start ended ('superseded' when a newer start took over). */
  private start(slot: McpServerSlot): Promise<McpSlotState | 'superseded'> {
    this.stop(slot);
    const generation = ++slot.generation;
    const abort = new AbortController();
    slot.abort = abort;
    this.setState(slot, 'starting', null);
    const attempt = (async (): Promise<McpSlotState | 'superseded'> => {
      let connection: McpConnection;
      try {
        const { McpConnection } = await loadConnectionModule();
        // startup_timeout_sec counts from the server's start, not from the login shell's (once per app run).
        if (slot.config.transport.type === 'stdio') await this.options.supervisor.loginEnvironment();
        if (generation !== slot.generation || this.closed) return generation !== slot.generation ? 'superseded' : this.setState(slot, 'cancelled', null);
        connection = await McpConnection.open(
          slot.config,
          async () => this.options.supervisor,
          abort.signal,
          (reason) => this.lost(slot, connection, reason),
          this.elicitHandler(slot.config.name),
          this.options.clientInfo,
        );
      } catch (error) {
        if (generation !== slot.generation) return 'superseded';
        if (this.closed || abort.signal.aborted) return this.setState(slot, 'cancelled', null);
        return this.setState(slot, 'failed', error instanceof Error ? error.message : String(error));
      }
      if (generation !== slot.generation || this.closed) {
        await connection.close();
        if (generation !== slot.generation) return 'superseded';
        return this.setState(slot, 'cancelled', null);
      }
      slot.connection = connection;
      slot.readyAtMs = this.now();
      this.toolCache = null;
      return this.setState(slot, 'ready', null);
    })();
    slot.starting = attempt;
    void attempt.finally(() => {
      if (slot.starting === attempt) slot.starting = null;
    });
    return this.track(attempt);
  }

  private lost(slot: McpServerSlot, connection: McpConnection, reason: string): void {
    if (slot.connection !== connection || this.closed) return;
    slot.connection = null;
    this.toolCache = null;
    if (this.now() - slot.readyAtMs >= STABLE_UPTIME_MS) slot.restartAttempts = 0;
    const delay = (this.options.restartDelayMs ?? defaultRestartDelay)(slot.restartAttempts++);
    this.setState(slot, 'failed', `${reason}; restarting in ${Math.round(delay / 100) / 10} s`);
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = null;
      if (!this.closed && slot.config.enabled && slot.state === 'failed') void this.start(slot);
    }, delay);
    slot.restartTimer.unref?.();
  }

  /** Ends whatever the slot has running or starting; the process is stopped in the background (tracked for close). */
  private stop(slot: McpServerSlot): void {
    if (slot.restartTimer) clearTimeout(slot.restartTimer);
    slot.restartTimer = null;
    slot.generation++;
    slot.abort?.abort();
    slot.abort = null;
    const connection = slot.connection;
    slot.connection = null;
    this.toolCache = null;
    if (connection) void this.track(connection.close());
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise)).catch(() => undefined);
    return promise;
  }

  private setState(slot: McpServerSlot, state: McpSlotState, error: string | null): McpSlotState {
    slot.state = state;
    slot.error = error;
    if (state !== 'disabled') {
      this.options.onStatus({ name: slot.config.name, status: state, error, failureReason: null, threadId: null });
    }
    return state;
  }

  private tools(): NonNullable<McpManager['toolCache']> {
    if (this.toolCache) return this.toolCache;
    const refs: McpToolRef[] = [];
    const described = new Map<string, { description: string; parameters: Record<string, unknown> }>();
    for (const slot of this.slots.values()) {
      if (slot.state !== 'ready' || !slot.connection) continue;
      for (const tool of slot.connection.catalog.tools) {
        if (!isToolAllowed(slot.config, tool.name)) continue;
        refs.push({ server: slot.config.name, tool: tool.name });
        described.set(`${slot.config.name}\u0000${tool.name}`, {
          description: tool.description ?? tool.title ?? `${tool.name} (MCP server ${slot.config.name})`,
          parameters: modelParameters(tool.inputSchema),
        });
      }
    }
    const byName = assignModelToolNames(refs);
    const specs = [...byName.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, ref]) => ({ name, ...described.get(`${ref.server}\u0000${ref.tool}`)! }));
    this.toolCache = { specs, byName };
    return this.toolCache;
  }
}

/** Why a URL elicitation's link is not offered (the desktop's vetExternalUrl rules: any other scheme could run or open local things); null when it is fine. */
function urlRefusal(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a valid URL';
  }
  if (url.protocol !== 'https:') return `only https links are opened, not ${url.protocol}`;
  if (url.username !== '' || url.password !== '') return 'the link carries credentials';
  return null;
}

function defaultRestartDelay(attempt: number): number {
  return Math.min(30_000, 1_000 * 2 ** attempt);
}

/** Only transport and start-up settings need a new process; tool filters and timeouts apply live. */
function needsRestart(before: McpServerConfig, after: McpServerConfig): boolean {
  return JSON.stringify([before.transport, before.startupTimeoutMs]) !== JSON.stringify([after.transport, after.startupTimeoutMs]);
}

/** The tool's JSON Schema as a provider takes it: an object schema without `$schema`. */
function modelParameters(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return { ...rest, type: 'object', properties: (rest.properties as Record<string, unknown> | undefined) ?? {} };
}

function describeCallFailure(slot: McpServerSlot, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === -32000 && /closed/i.test(message)) return `MCP server "${slot.config.name}" stopped during the call`;
  return message;
}
