import { createHash } from 'node:crypto';
import type { Ajv, ValidateFunction } from 'ajv';
import { RpcError, ServerRequestError, type DynamicToolCallParams, type DynamicToolSpec } from '../../../shared/protocol/index.js';
import type { StateStore } from '../../store/state-store.js';
import type { OutgoingSender } from '../outgoing/outgoing-sender.js';
import type { ToolEntry, ToolInvocation, ToolResult, ToolSource } from './tool-table.js';

/** What a client tool's call needs of its turn. */
export interface ClientToolTurn {
  readonly threadId: string;
  readonly id: string;
}

/** A thread's client tool as a row of the tool table; the model sees `<namespace>__<name>`, within the providers' `^[a-zA-Z0-9_-]{1,64}$`. */
type ClientTool = ToolEntry<ClientToolTurn>;

/** The part of the event log client tools use (declared here so tools/ does not reach up into the core). */
export interface ToolCallLog {
  publish(method: 'tool_call.requested', params: DynamicToolCallParams, scope: { threadId: string; turnId: string; ephemeral: boolean }): number;
  /** Resolves once everything published so far has gone out. */
  announced(): Promise<void>;
}

export interface ClientToolsDeps {
  readonly storeOf: (threadId: string) => StateStore;
  /** Whether the thread lives in memory only (its `tool_call.requested` is not kept). */
  readonly isEphemeral: (threadId: string) => boolean;
  /** Sends `item/tool/call` to the connection that answers for the thread's tools. */
  readonly outgoing: Pick<OutgoingSender, 'request' | 'canReach'>;
  /** Where each call is announced (`tool_call.requested`) before it is sent, and whose notifications it never overtakes. */
  readonly events: ToolCallLog;
  /** Names of the runtime's own tools (read when a tool is registered); a client tool may not shadow one. */
  readonly reservedNames: () => ReadonlySet<string>;
  readonly timeoutMs: number;
  readonly now: () => number;
}

const MODEL_NAME_LIMIT = 64;

/**
 * Client-side (dynamic) tools, as Codex does them: registered on
 * thread/start and kept with the thread, offered to the model as a source
 * of the tool table, their arguments checked against the tool's inputSchema
 * before the client sees them, announced in the log (`tool_call.requested`,
 * where HTTP clients look) and sent through the OutgoingSender as
 * `item/tool/call` to the connection that answers for the thread's tools.
 */
export class ClientTools implements ToolSource<ClientToolTurn> {
  /** Loaded with the first thread that has client tools: Ajv costs ~100 ms to load, most threads never need it. */
  private ajv: Promise<Ajv> | null = null;
  private readonly byThread = new Map<string, Map<string, ClientTool>>();
  private readonly owners = new Map<string, string>();

  constructor(private readonly deps: ClientToolsDeps) {}

  /** Refuses (-32602) specs that cannot work, before anything is created; returns them compiled. */
  async check(specs: readonly DynamicToolSpec[]): Promise<Map<string, ClientTool>> {
    return this.compile(specs);
  }

  /** Keeps the thread's (checked) tools with the thread and remembers which connection answers for them. */
  register(threadId: string, specs: readonly DynamicToolSpec[], compiled: Map<string, ClientTool>, ownerConnectionId: string | null): void {
    if (ownerConnectionId !== null) this.owners.set(threadId, ownerConnectionId);
    if (specs.length === 0) return;
    this.byThread.set(threadId, compiled);
    this.deps.storeOf(threadId).dynamicTools.save(threadId, specs, this.deps.now());
  }

  /**
   * Adds tools to a thread (seed 004: tools may also come with a turn). A tool
   * with the same model name replaces the old one. Checked like thread/start;
   * returns how to undo it, for a turn that then fails to start.
   */
  async add(threadId: string, specs: readonly DynamicToolSpec[]): Promise<() => void> {
    const store = this.deps.storeOf(threadId);
    const before = store.dynamicTools.get(threadId);
    const merged = mergeToolSpecs(before, specs);
    const compiled = await this.compile(merged);
    const previous = this.byThread.get(threadId);
    this.byThread.set(threadId, compiled);
    store.dynamicTools.save(threadId, merged, this.deps.now());
    return () => {
      if (previous) this.byThread.set(threadId, previous);
      else this.byThread.delete(threadId);
      store.dynamicTools.save(threadId, before, this.deps.now());
    };
  }

  /** A fork keeps its parent's tools; the forking connection answers for them. */
  async inherit(fromThreadId: string, toThreadId: string, ownerConnectionId: string | null): Promise<void> {
    const specs = this.deps.storeOf(fromThreadId).dynamicTools.get(fromThreadId);
    this.register(toThreadId, specs, await this.toolsOf(fromThreadId), ownerConnectionId);
  }

  /** A connection that resumes a thread answers for its tools from then on. */
  claim(threadId: string, connectionId: string): void {
    this.owners.set(threadId, connectionId);
  }

  /** The thread's client tools, in the order they were registered. */
  async entries(scope: { readonly threadId: string }): Promise<readonly ClientTool[]> {
    return [...(await this.toolsOf(scope.threadId)).values()];
  }

  /** Sends one checked call to the client that answers for the thread; its failures are the model's to read. */
  private async request(
    tool: { readonly modelName: string; readonly namespace: string | null; readonly name: string },
    args: unknown,
    { turn, call, signal }: ToolInvocation<ClientToolTurn>,
  ): Promise<ToolResult> {
    const owner = this.owners.get(turn.threadId) ?? null;
    const params = { threadId: turn.threadId, turnId: turn.id, callId: call.id, namespace: tool.namespace, tool: tool.name, arguments: args };
    // A call never overtakes the notifications published before it (its item/started).
    await this.deps.events.announced();
    const audience = { kind: 'one', connectionId: owner ?? '' } as const;
    if (owner === null || !this.deps.outgoing.canReach('item/tool/call', audience)) {
      return { success: false, output: `${tool.modelName}: the client that registered this tool is not connected` };
    }
    this.deps.events.publish('tool_call.requested', params, { threadId: turn.threadId, turnId: turn.id, ephemeral: this.deps.isEphemeral(turn.threadId) });
    const pending = this.deps.outgoing.request('item/tool/call', params, {
      threadId: turn.threadId,
      turnId: turn.id,
      audience,
      signal,
      timeoutMs: this.deps.timeoutMs,
    });
    try {
      const answer = await pending;
      const output = answer.contentItems
        .map((item) => (item.type === 'inputText' ? item.text : `[${item.type === 'inputImage' ? 'image' : 'audio'} returned by the tool]`))
        .join('\n');
      return { success: answer.success, output };
    } catch (error) {
      const why = error instanceof ServerRequestError ? error.message : `failed: ${error instanceof Error ? error.message : String(error)}`;
      return { success: false, output: `${tool.modelName}: ${why}` };
    }
  }

  private async toolsOf(threadId: string): Promise<Map<string, ClientTool>> {
    let tools = this.byThread.get(threadId);
    if (!tools) {
      // Loaded after a restart from the thread's store; compiled once.
      tools = await this.compile(this.deps.storeOf(threadId).dynamicTools.get(threadId));
      this.byThread.set(threadId, tools);
    }
    return tools;
  }

  private compiler(): Promise<Ajv> {
    // ajv is CommonJS: in the split bundle its exports are only on the default export.
    this.ajv ??= import('ajv').then((mod) => new (mod.Ajv ?? mod.default)({ strict: false, allErrors: false }));
    return this.ajv;
  }

  private async compile(specs: readonly DynamicToolSpec[]): Promise<Map<string, ClientTool>> {
    const tools = new Map<string, ClientTool>();
    if (specs.length === 0) return tools;
    const ajv = await this.compiler();
    const reserved = this.deps.reservedNames();
    const add = (namespace: string | null, fn: Extract<DynamicToolSpec, { type: 'function' }>) => {
      const modelName = modelNameOf(namespace, fn.name);
      const label = namespace === null ? fn.name : `${namespace}/${fn.name}`;
      if (reserved.has(modelName)) {
        throw RpcError.invalidParams(`invalid params for thread/start: dynamicTools: ${label} would shadow the built-in tool ${modelName}`);
      }
      if (tools.has(modelName)) {
        throw RpcError.invalidParams(`invalid params for thread/start: dynamicTools: ${label} is declared twice (as ${modelName})`);
      }
      let validate: ValidateFunction;
      try {
        validate = ajv.compile(fn.inputSchema);
      } catch (error) {
        throw RpcError.invalidParams(
          `invalid params for thread/start: dynamicTools: ${label}: inputSchema is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      const tool = { modelName, namespace, name: fn.name };
      tools.set(modelName, {
        spec: { name: modelName, description: fn.description, parameters: fn.inputSchema },
        args: {
          check: (input) =>
            !input.json
              ? { ok: false, problem: `not valid JSON: ${input.text.slice(0, 200)}` }
              : validate(input.value)
                ? { ok: true, value: input.value }
                : { ok: false, problem: ajv.errorsText(validate.errors, { dataVar: 'arguments' }) },
        },
        run: (args, invocation) => this.request(tool, args, invocation),
      });
    };
    for (const spec of specs) {
      if (spec.type === 'function') add(null, spec);
      else for (const fn of spec.tools) add(spec.name, fn);
    }
    return tools;
  }
}

/** `<namespace>__<name>` made provider-safe; a long one keeps its start and a short hash, so it stays unique. */
export function modelNameOf(namespace: string | null, name: string): string {
  const joined = namespace === null ? name : `${namespace}__${name}`;
  const safe = joined.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (safe.length <= MODEL_NAME_LIMIT) return safe;
  const hash = createHash('sha256').update(joined).digest('hex').slice(0, 8);
  return `${safe.slice(0, MODEL_NAME_LIMIT - 9)}_${hash}`;
}

/** `added` on top of `current`, one function per model name (the newest wins), regrouped by namespace. */
function mergeToolSpecs(current: readonly DynamicToolSpec[], added: readonly DynamicToolSpec[]): DynamicToolSpec[] {
  type Fn = Extract<DynamicToolSpec, { type: 'function' }>;
  const entries = new Map<string, { namespace: string | null; description: string | null; fn: Fn }>();
  for (const spec of [...current, ...added]) {
    if (spec.type === 'function') entries.set(modelNameOf(null, spec.name), { namespace: null, description: null, fn: spec });
    else for (const fn of spec.tools) entries.set(modelNameOf(spec.name, fn.name), { namespace: spec.name, description: spec.description, fn });
  }
  const out: DynamicToolSpec[] = [];
  const groups = new Map<string, Extract<DynamicToolSpec, { type: 'namespace' }>>();
  for (const entry of entries.values()) {
    if (entry.namespace === null) {
      out.push(entry.fn);
      continue;
    }
    let group = groups.get(entry.namespace);
    if (!group) {
      group = { type: 'namespace', name: entry.namespace, description: entry.description ?? '', tools: [] };
      groups.set(entry.namespace, group);
      out.push(group);
    }
    group.tools.push(entry.fn);
  }
  return out;
}
