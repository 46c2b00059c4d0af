import { z } from 'zod';
import type { ToolCallOutcome } from '../../../shared/protocol/index.js';
import type { ModelToolCall, ModelToolSpec } from '../../model/types.js';

export interface ToolResult {
  readonly success: boolean;
  /** Text handed back to the model (and shown on the tool card). */
  readonly output: string;
}

/** A call's arguments as the model sent them: JSON, or text that is not JSON (a bare patch, a typo). */
export type ToolInput = { readonly json: true; readonly value: unknown } | { readonly json: false; readonly text: string };

/** Checks a call's arguments against the schema the model was given; `problem` is read by the model. */
export interface ArgumentsCheck {
  check(input: ToolInput): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };
}

/** A PermissionRequest hook's refusal, in words for the model and as the outcome a person sees. */
export interface HookRefusal {
  readonly text: string;
  readonly outcome: ToolCallOutcome;
}

/** What PermissionRequest hooks are told of an approval a tool asks for (the tool's name is filled in). */
export interface PermissionDetails {
  readonly requestId: string;
  readonly command: string | null;
  readonly reason: string | null;
}

/**
 * PermissionRequest hooks, bound to one call: a tool that asks the person
 * calls `requested` first (a refusal declines without asking) and
 * `answered` with the decision's name (`ended` when its turn stopped first).
 */
export interface PermissionHooks {
  requested(details: PermissionDetails): Promise<HookRefusal | null>;
  answered(details: PermissionDetails, decision: string): Promise<void>;
}

/** One model tool call as a handler receives it. */
export interface ToolInvocation<Turn> {
  readonly turn: Turn;
  readonly call: ModelToolCall;
  /** The arguments as JSON, or their raw text when they are not JSON (what an item shows). */
  readonly input: unknown;
  readonly signal: AbortSignal;
  readonly permission: PermissionHooks;
}

/** Why a call did not run: its arguments failed the schema, a PreToolUse hook refused it, or the turn stopped first. */
export type Refusal =
  | { readonly kind: 'invalidArguments'; readonly message: string }
  | ({ readonly kind: 'blocked' } & HookRefusal)
  | { readonly kind: 'interrupted' };

/** The words the model reads for a refusal of a tool without its own item. */
export function refusalText(refusal: Refusal): string {
  if (refusal.kind === 'invalidArguments') return refusal.message;
  if (refusal.kind === 'blocked') return refusal.text;
  return 'The turn was interrupted before the tool ran.';
}

/** Which turn a tool list is for: per-thread tools and filters read it. */
export interface ToolScope {
  readonly threadId: string;
  readonly hasGoal: boolean;
}

/**
 * One row of the tool table: what the model is offered (`spec`), how its
 * arguments are checked, and the handler. Hooks, argument errors and the
 * call's record are the dispatcher's, the same for every row.
 */
export interface ToolEntry<Turn> {
  readonly spec: ModelToolSpec;
  readonly args: ArgumentsCheck;
  /** Runs a call whose arguments passed `args` and that no hook refused. */
  run(args: unknown, invocation: ToolInvocation<Turn>): Promise<ToolResult>;
  /**
   * For a tool whose calls are their own thread items (commands, patches,
   * MCP calls): records a call that did not run. Without it the dispatcher
   * records every call as a `dynamicToolCall` item.
   */
  readonly refuse?: (refusal: Refusal, invocation: ToolInvocation<Turn>) => Promise<ToolResult>;
  /** Offered only to some turns (goal tools: threads with a goal); absent, to every turn. */
  readonly offeredTo?: (scope: ToolScope) => boolean;
}

/** Tools that come and go (MCP servers' tools, a thread's client tools), in prompt order. */
export interface ToolSource<Turn> {
  entries(scope: ToolScope): readonly ToolEntry<Turn>[] | Promise<readonly ToolEntry<Turn>[]>;
}

/** A second tool under a name the table already has. */
export class DuplicateToolError extends Error {
  override readonly name = 'DuplicateToolError';
  constructor(readonly toolName: string) {
    super(`the tool table already has a tool named ${toolName}; each name the model sees must be unique`);
  }
}

/** Arguments checked by a zod schema (the one the model's JSON Schema is derived from). */
export function zodArguments(schema: z.ZodType, options: { prepare?: (raw: unknown) => unknown } = {}): ArgumentsCheck {
  return {
    check(input) {
      if (!input.json && !options.prepare) return { ok: false, problem: `not valid JSON: ${input.text.slice(0, 200)}` };
      const raw = input.json ? input.value : input.text;
      const parsed = schema.safeParse(options.prepare ? options.prepare(raw) : raw);
      if (parsed.success) return { ok: true, value: parsed.data };
      const issue = parsed.error.issues[0];
      return { ok: false, problem: issue ? `${issue.path.join('.') || '(arguments)'}: ${issue.message}` : 'invalid' };
    },
  };
}

/**
 * The JSON Schema the model is given for a zod object, generated once so
 * every request carries byte-identical JSON (provider prompt caches).
 */
export function jsonSchemaOf(args: z.ZodObject): Record<string, unknown> {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(args);
  return parameters;
}

/** What a tool is written as: its spec derived from `args`, never written by hand. */
export interface ToolDefinition<S extends z.ZodObject, Turn> {
  readonly name: string;
  readonly description: string;
  readonly args: S;
  run(args: z.output<S>, invocation: ToolInvocation<Turn>): Promise<ToolResult> | ToolResult;
  /** Turns arguments this tool also takes (a bare patch, as JSON text or not) into what `args` checks; with it, text that is not JSON reaches it as a string. */
  readonly prepare?: (raw: unknown) => unknown;
  readonly refuse?: ToolEntry<Turn>['refuse'];
  readonly offeredTo?: ToolEntry<Turn>['offeredTo'];
}

/**
 * A table row from one zod schema and one handler. The model is told
 * `additionalProperties: false`, so a call with a field the schema does not
 * name is refused, not stripped.
 */
export function defineTool<S extends z.ZodObject, Turn = unknown>(definition: ToolDefinition<S, Turn>): ToolEntry<Turn> {
  return {
    spec: specOf(definition),
    args: zodArguments(definition.args.strict(), definition.prepare ? { prepare: definition.prepare } : {}),
    // `args` is what this row's own schema parsed.
    run: async (args, invocation) => definition.run(args as z.output<S>, invocation),
    ...(definition.refuse ? { refuse: definition.refuse } : {}),
    ...(definition.offeredTo ? { offeredTo: definition.offeredTo } : {}),
  };
}

/**
 * The tool's spec; its JSON Schema is worked out when first read (the first
 * turn), not when the runtime starts: converting every tool's schema took a
 * noticeable part of start-up.
 */
function specOf(definition: { readonly name: string; readonly description: string; readonly args: z.ZodObject }): ModelToolSpec {
  let parameters: Record<string, unknown> | undefined;
  return {
    name: definition.name,
    description: definition.description,
    get parameters() {
      return (parameters ??= jsonSchemaOf(definition.args));
    },
  };
}

/** The tools of one turn: the list the model is sent, and the row each name stands for. */
export class TurnTools<Turn> {
  private readonly byName: ReadonlyMap<string, ToolEntry<Turn>>;

  constructor(readonly entries: readonly ToolEntry<Turn>[]) {
    this.byName = new Map(entries.map((entry) => [entry.spec.name, entry]));
  }

  get specs(): ModelToolSpec[] {
    return this.entries.map((entry) => entry.spec);
  }

  lookup(name: string): ToolEntry<Turn> | null {
    return this.byName.get(name) ?? null;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}

type Row<Turn> = { readonly entry: ToolEntry<Turn> } | { readonly source: ToolSource<Turn> };

/**
 * Every tool the agent may be offered, in a fixed order (so the prompt
 * prefix stays byte-stable for provider caches): fixed rows registered once,
 * and sources whose rows change (MCP servers, a thread's client tools). A
 * turn's list is a query of the table.
 */
export class ToolTable<Turn> {
  private readonly rows: Row<Turn>[] = [];
  private readonly fixed = new Map<string, ToolEntry<Turn>>();

  /** Adds fixed rows; a name already in the table is refused (`DuplicateToolError`) and nothing is added. */
  register(...entries: readonly ToolEntry<Turn>[]): this {
    const names = new Set<string>();
    for (const entry of entries) {
      const name = entry.spec.name;
      if (this.fixed.has(name) || names.has(name)) throw new DuplicateToolError(name);
      names.add(name);
    }
    for (const entry of entries) {
      this.fixed.set(entry.spec.name, entry);
      this.rows.push({ entry });
    }
    return this;
  }

  /** Adds a source of changing rows at this place in the order. */
  registerSource(source: ToolSource<Turn>): this {
    this.rows.push({ source });
    return this;
  }

  /** Names of the fixed rows: a client tool may not take one. */
  fixedNames(): ReadonlySet<string> {
    return new Set(this.fixed.keys());
  }

  /**
   * The tools offered to a turn. A source's row under a name taken earlier
   * in the order is left out (fixed rows and earlier sources win; client
   * tools are refused such names when they are registered).
   */
  async forTurn(scope: ToolScope): Promise<TurnTools<Turn>> {
    const offered: ToolEntry<Turn>[] = [];
    const taken = new Set<string>();
    for (const row of this.rows) {
      const entries = 'entry' in row ? [row.entry] : await row.source.entries(scope);
      for (const entry of entries) {
        if (entry.offeredTo && !entry.offeredTo(scope)) continue;
        if (taken.has(entry.spec.name)) continue;
        taken.add(entry.spec.name);
        offered.push(entry);
      }
    }
    return new TurnTools(offered);
  }
}
