import type { ThreadItem, TurnFailure } from '../../../shared/protocol/index.js';
import { ModelError, type ModelToolCall } from '../../model/types.js';
import type { EventLog } from '../event-log.js';
import type { GoalManager } from '../goal-manager.js';
import type { ThreadManager } from '../thread-manager.js';
import type { CommandRunner } from '../commands/command-runner.js';
import { commandToolSpecs, EXEC_COMMAND, WRITE_STDIN } from '../commands/command-tool-specs.js';
import type { PatchRunner } from '../patch/patch-runner.js';
import { APPLY_PATCH, applyPatchToolSpec } from '../patch/patch-tool-spec.js';
import type { ClientTools } from '../tools/client-tools.js';
import { jobToolSpecs, type AgentJobTools } from '../jobs/job-tools.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import type { ModelBinder } from '../../model/types.js';
import { addUsage, type ActiveTurn } from './active-turn.js';
import { buildInstructions } from './instructions.js';
import { buildModelHistory } from './model-history.js';
import { goalToolSpecs, isGoalTool, runGoalTool } from './goal-tools.js';
import { runMcpToolCall, type McpToolCaller } from './mcp-tool-call.js';
import { ReplyItems } from './reply-items.js';
import { blockedText, type HookDispatcher } from '../hooks/hook-dispatcher.js';
import { hookContextOf } from '../hooks/turn-hooks.js';
import type { TurnChanges } from '../projects/turn-changes.js';

/** A runaway tool loop is stopped after this many model requests in one turn. */
export const MAX_MODEL_REQUESTS_PER_TURN = 64;

export interface TurnRunnerDeps {
  readonly threads: ThreadManager;
  readonly events: EventLog;
  readonly goals: GoalManager;
  readonly tools: ToolRegistry;
  readonly clientTools: ClientTools;
  /** exec_command / write_stdin. */
  readonly commands: CommandRunner;
  /** apply_patch. */
  readonly patches: PatchRunner;
  readonly bindModel: ModelBinder;
  readonly newId: () => string;
  readonly now: () => number;
  /** Thread-wide usage before this turn, for `thread/tokenUsage/updated`. */
  readonly threadUsage: (threadId: string) => ActiveTurn['usage'];
  /** PreToolUse / PostToolUse hooks around each tool call. */
  readonly hooks: HookDispatcher;
  /** MCP servers' tools (their calls become `mcpToolCall` items). */
  readonly mcp?: McpToolCaller;
  /** job_start / job_status / job_output: background jobs without blocking the turn. */
  readonly jobTools?: AgentJobTools;
  /** Checkpoints before a turn's first file change, its diff after each (undo, turn/diff/updated). */
  readonly changes?: Pick<TurnChanges, 'beforeChange' | 'afterChange'>;
}

export type TurnOutcome =
  | { readonly status: 'completed' }
  | { readonly status: 'interrupted'; readonly error: TurnFailure | null }
  | { readonly status: 'failed'; readonly error: TurnFailure };

/**
 * The agent loop of one turn: history + tools -> streamed reply -> tool calls
 * -> tool results -> next request, until the model answers without tools and
 * no steer input is waiting.
 */
export async function runTurn(turn: ActiveTurn, deps: TurnRunnerDeps): Promise<TurnOutcome> {
  const signal = turn.controller.signal;
  let reply: ReplyItems | null = null;
  try {
    const { record } = deps.threads.require(turn.threadId);
    const binding = await deps.bindModel({ modelProvider: record.modelProvider, model: turn.model ?? record.model });
    turn.model = binding.model;
    const hasGoal = turn.store.goals.get(turn.threadId) !== null;
    const tools = [
      ...deps.tools.specs(),
      ...commandToolSpecs,
      applyPatchToolSpec,
      ...(deps.jobTools ? jobToolSpecs : []),
      ...(hasGoal ? goalToolSpecs : []),
      ...(await deps.clientTools.specsFor(turn.threadId)),
    ];
    for (let request = 0; request < MAX_MODEL_REQUESTS_PER_TURN; request++) {
      if (signal.aborted) return { status: 'interrupted', error: null };
      storePendingInput(turn);
      const goal = turn.store.goals.get(turn.threadId);
      const messages = buildModelHistory(turn.store.items.list(turn.threadId));
      reply = new ReplyItems(turn, deps.events, deps.newId, deps.now);
      const calls: ModelToolCall[] = [];
      const stream = binding.client.stream({
        model: binding.model,
        instructions: buildInstructions(turn.cwd, goal),
        messages,
        tools,
        signal,
      });
      let budgetExhausted = false;
      for await (const event of stream) {
        switch (event.type) {
          case 'textDelta':
            reply.textDelta(event.delta);
            break;
          case 'reasoningDelta':
            reply.reasoningDelta(event.delta);
            break;
          case 'toolCall':
            calls.push(event.call);
            break;
          case 'usage':
            turn.usage = addUsage(turn.usage, event.usage);
            deps.events.publish(
              'thread/tokenUsage/updated',
              {
                threadId: turn.threadId,
                turnId: turn.id,
                tokenUsage: {
                  total: addUsage(deps.threadUsage(turn.threadId), turn.usage),
                  last: event.usage,
                  modelContextWindow: binding.contextWindow,
                },
              },
              { threadId: turn.threadId, turnId: turn.id, ephemeral: turn.ephemeral },
            );
            budgetExhausted = deps.goals.addTokens(turn.threadId, turn.id, event.usage.totalTokens) || budgetExhausted;
            break;
          case 'retrying':
            deps.events.publish(
              'turn/retrying',
              { threadId: turn.threadId, turnId: turn.id, attempt: event.attempt, delayMs: event.delayMs, reason: event.reason },
              { threadId: turn.threadId, turnId: turn.id, ephemeral: turn.ephemeral },
            );
            break;
          case 'done':
            break;
          default: {
            const unreachable: never = event;
            throw new Error(`unknown model event ${JSON.stringify(unreachable)}`);
          }
        }
      }
      if (signal.aborted) return { status: 'interrupted', error: null };
      reply.completeAll();
      reply = null;
      if (budgetExhausted) {
        return {
          status: 'interrupted',
          error: {
            kind: 'budgetExhausted',
            message: 'The thread goal reached its token budget, so the agent stopped. Raise the budget or clear the goal to continue.',
            httpStatus: null,
            additionalDetails: null,
          },
        };
      }
      for (const call of calls) {
        if (signal.aborted) return { status: 'interrupted', error: null };
        await runToolCall(turn, call, deps);
      }
      if (calls.length === 0 && turn.pendingInput.length === 0) return { status: 'completed' };
    }
    return {
      status: 'failed',
      error: {
        kind: 'other',
        message: `The agent made ${MAX_MODEL_REQUESTS_PER_TURN} model requests without finishing, so the turn was stopped.`,
        httpStatus: null,
        additionalDetails: null,
      },
    };
  } catch (error) {
    if (signal.aborted) return { status: 'interrupted', error: null };
    if (error instanceof ModelError) return { status: 'failed', error: error.toTurnError() };
    return {
      status: 'failed',
      error: {
        kind: 'other',
        message: `Something went wrong in Wheelhouse: ${error instanceof Error ? error.message : String(error)}`,
        httpStatus: null,
        additionalDetails: null,
      },
    };
  } finally {
    // Partial text of a cut or stopped reply is kept, marked incomplete.
    reply?.completeAll(true);
  }
}

/**
 * Moves steer input into the thread history, in arrival order. It was saved
 * as pending when acknowledged; this gives it its place after the model step
 * that was running (never between a reply and its tool calls and results).
 */
export function storePendingInput(turn: ActiveTurn): void {
  if (turn.pendingInput.length === 0) return;
  const items = turn.pendingInput.splice(0);
  turn.store.transaction(() => {
    for (const item of items) {
      turn.store.items.append(turn.threadId, item);
      turn.store.pending.delete(item.id);
    }
  });
}

async function runToolCall(turn: ActiveTurn, call: ModelToolCall, deps: TurnRunnerDeps): Promise<void> {
  // A patch is its own item (fileChange); the runner calls PostToolUse hooks itself.
  if (call.name === APPLY_PATCH) {
    const blocked = await deps.hooks.preToolUse(hookContextOf(turn), { name: call.name, callId: call.id, argumentsJson: call.arguments });
    if (blocked) return deps.patches.applyPatch(turn, call, blocked);
    await deps.changes?.beforeChange(turn);
    await deps.patches.applyPatch(turn, call, blocked);
    await deps.changes?.afterChange(turn);
    return;
  }
  // A command is its own item (commandExecution), not a generic tool call.
  if (call.name === EXEC_COMMAND) {
    const hookCall = { name: call.name, callId: call.id, argumentsJson: call.arguments };
    const blocked = await deps.hooks.preToolUse(hookContextOf(turn), hookCall);
    // Any command may write files: the checkpoint comes first, the diff after it answered.
    if (!blocked) await deps.changes?.beforeChange(turn);
    const result = await deps.commands.execCommand(turn, call, blocked);
    if (!blocked) await deps.changes?.afterChange(turn);
    // As for other tools: PostToolUse hooks hear what the command answered, unless a PreToolUse hook refused it.
    if (!blocked) await deps.hooks.postToolUse(hookContextOf(turn), hookCall, result);
    return;
  }
  const mcpTool = deps.mcp?.resolveTool(call.name);
  if (mcpTool && deps.mcp) return runMcpToolCall(turn, call, mcpTool, { ...deps, mcp: deps.mcp });
  const startedAtMs = deps.now();
  let parsedArgs: unknown = call.arguments;
  try {
    parsedArgs = JSON.parse(call.arguments);
  } catch {
    // shown as the raw text
  }
  const base = {
    type: 'dynamicToolCall' as const,
    namespace: null,
    id: deps.newId(),
    turnId: turn.id,
    createdAtMs: startedAtMs,
    startedAtMs,
    tool: call.name,
    callId: call.id,
    arguments: parsedArgs,
  };
  const scope = { threadId: turn.threadId, turnId: turn.id, itemId: base.id, ephemeral: turn.ephemeral };
  const started: ThreadItem = {
    ...base,
    status: 'inProgress',
    completedAtMs: null,
    contentItems: null,
    output: null,
    success: null,
    durationMs: null,
  };
  deps.events.publish('item/started', { threadId: turn.threadId, turnId: turn.id, item: started, startedAtMs }, scope);
  // A client may take minutes to answer; if the runtime dies meanwhile, the restart records the
  // call as failed instead of losing it (turn-recovery moves pending items into the thread).
  turn.store.pending.save('streaming', turn.threadId, { ...started, status: 'failed', output: 'canceled by restart', success: false });
  // Until it is stored, a window that opens the thread sees it as running (thread/read, thread/resume).
  turn.liveItems.set(started.id, () => started);
  const signal = turn.controller.signal;
  const hookCall = { name: call.name, callId: call.id, argumentsJson: call.arguments };
  if (call.name === WRITE_STDIN) await deps.changes?.beforeChange(turn);
  const result = await deps.hooks.aroundToolUse(hookContextOf(turn), hookCall, async () =>
    call.name === WRITE_STDIN
      ? await deps.commands.writeStdin(call.arguments)
      : deps.jobTools?.has(call.name)
        ? await deps.jobTools.invoke(turn, call.name, call.arguments)
      : isGoalTool(call.name)
        ? runGoalTool(deps.goals, { threadId: turn.threadId, turnId: turn.id }, call.name, call.arguments)
      : (await deps.clientTools.has(turn.threadId, call.name))
        ? await deps.clientTools.invoke(
            { threadId: turn.threadId, turnId: turn.id, callId: call.id, modelName: call.name, argumentsJson: call.arguments },
            signal,
          )
        : await deps.tools.invoke(call.name, call.arguments, { cwd: turn.cwd, signal }),
  );
  // A command still running in the background may have written more since.
  if (call.name === WRITE_STDIN) await deps.changes?.afterChange(turn);
  const completedAtMs = deps.now();
  const completed: ThreadItem = {
    ...base,
    status: result.success ? 'completed' : 'failed',
    completedAtMs,
    contentItems: [{ type: 'inputText', text: result.output }],
    output: result.output,
    success: result.success,
    durationMs: completedAtMs - startedAtMs,
  };
  deps.events.commit(turn.store, () => {
    turn.store.items.append(turn.threadId, completed);
    turn.store.pending.delete(completed.id);
    deps.events.publish('item/completed', { threadId: turn.threadId, turnId: turn.id, item: completed, completedAtMs, contentTokenCount: null }, scope);
  });
  turn.liveItems.delete(completed.id);
}
