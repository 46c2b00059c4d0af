import { z } from 'zod';
import type { ModelToolSpec } from '../../model/types.js';

export interface ToolContext {
  /** The thread's working directory; read-only built-ins never leave it. */
  readonly cwd: string;
  readonly signal: AbortSignal;
}

export interface ToolResult {
  readonly success: boolean;
  /** Text handed back to the model (and shown on the tool card). */
  readonly output: string;
}

/** One tool the model may call. Later issues add shell, patch, MCP and client tools here. */
export interface Tool<S extends z.ZodType = z.ZodType> {
  readonly spec: ModelToolSpec;
  readonly args: S;
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * Tools that come and go while the app runs (MCP servers). `specs()` must
 * return the same array while nothing changed; their calls are run by the
 * turn runner, not by the registry.
 */
export interface ToolSource {
  specs(): readonly ModelToolSpec[];
}

/** What a tool is written as: its JSON schema for the model is derived from `args`, never written by hand. */
export interface ToolDefinition<S extends z.ZodObject> {
  readonly name: string;
  readonly description: string;
  readonly args: S;
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * Builds a tool whose `spec.parameters` is generated once from its zod schema,
 * so every request sends byte-identical JSON (provider prompt caches).
 */
export function defineTool<S extends z.ZodObject>(definition: ToolDefinition<S>): Tool {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(definition.args);
  const tool: Tool<S> = {
    spec: { name: definition.name, description: definition.description, parameters },
    args: definition.args,
    run: (args, ctx) => definition.run(args, ctx),
  };
  // Every caller hands `run` what `args` parsed, so widening the schema type is safe.
  return tool as unknown as Tool;
}

/** Largest tool output sent to the model; the rest is cut with a note. */
export const MAX_TOOL_OUTPUT_CHARS = 64 * 1024;

/**
 * The tools of a turn, in a fixed order (so the prompt prefix stays
 * byte-stable for provider caches). Bad calls become failed results the
 * model can read, never exceptions.
 */
export class ToolRegistry {
  private readonly byName = new Map<string, Tool>();
  private readonly builtinSpecs: readonly ModelToolSpec[];
  private merged: { parts: readonly (readonly ModelToolSpec[])[]; specs: readonly ModelToolSpec[] } | null = null;

  constructor(
    tools: readonly Tool[],
    private readonly sources: readonly ToolSource[] = [],
  ) {
    for (const tool of tools) this.byName.set(tool.spec.name, tool);
    this.builtinSpecs = [...this.byName.values()].map((t) => t.spec);
  }

  /** Built-ins first, then each source's tools; the same array while no source changed. */
  specs(): readonly ModelToolSpec[] {
    const parts = this.sources.map((source) => source.specs());
    const cached = this.merged;
    if (cached && cached.parts.length === parts.length && cached.parts.every((part, i) => part === parts[i])) return cached.specs;
    const specs = [...this.builtinSpecs, ...parts.flat()];
    this.merged = { parts, specs };
    return specs;
  }

  async invoke(name: string, argumentsJson: string, ctx: ToolContext): Promise<ToolResult> {
    const tool = this.byName.get(name);
    if (!tool) return { success: false, output: `Unknown tool "${name}". Available: ${[...this.byName.keys()].join(', ')}` };
    let raw: unknown;
    try {
      raw = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson);
    } catch {
      return { success: false, output: `Arguments for ${name} are not valid JSON: ${argumentsJson.slice(0, 200)}` };
    }
    const parsed = tool.args.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        success: false,
        output: `Invalid arguments for ${name}: ${issue ? `${issue.path.join('.') || '(arguments)'}: ${issue.message}` : 'invalid'}`,
      };
    }
    try {
      const result = await tool.run(parsed.data, ctx);
      return { success: result.success, output: truncate(result.output) };
    } catch (error) {
      return { success: false, output: `${name} failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}

function truncate(text: string): string {
  if (text.length <= MAX_TOOL_OUTPUT_CHARS) return text;
  return `${text.slice(0, MAX_TOOL_OUTPUT_CHARS)}\n… [output cut: ${text.length - MAX_TOOL_OUTPUT_CHARS} more characters]`;
}
