import type { ThreadItem } from '../../../shared/protocol/index.js';
import type { ModelToolCall } from '../../model/types.js';
import type { EventLog } from '../event-log.js';
import { blockedText, hookOutcome, type HookContext, type HookDispatcher } from '../hooks/hook-dispatcher.js';
import { hookContextOf } from '../hooks/turn-hooks.js';
import {
  refusalText,
  type PermissionHooks,
  type Refusal,
  type ToolEntry,
  type ToolInput,
  type ToolInvocation,
  type ToolResult,
  type TurnTools,
} from '../tools/tool-table.js';
import type { ActiveTurn } from '../active-turn.js';

/** Largest tool output sent to the model from a `dynamicToolCall` item; the rest is cut with a note. */
export const MAX_TOOL_OUTPUT_CHARS = 64 * 1024;

export interface ToolDispatchDeps {
  readonly events: EventLog;
  readonly hooks: Pick<HookDispatcher, 'preToolUse' | 'postToolUse' | 'approvalRequested' | 'approvalAnswered'>;
  readonly newId: () => string;
  readonly now: () => number;
}

/**
 * The one path of every model tool call, whatever its source: find the row,
 * check the arguments against its schema (a failure is the model's to read,
 * as Codex answers a call it cannot parse; no hook runs for it), PreToolUse
 * hooks (a block is the call's result; changed arguments are checked again
 * and are what runs), the handler, then PostToolUse hooks with what the model
 * is told. PermissionRequest hooks reach handlers bound
 * to the call. A call is recorded as a `dynamicToolCall` item unless its row
 * records its own (commands, patches, MCP calls).
 */
export async function dispatchToolCall(turn: ActiveTurn, call: ModelToolCall, tools: TurnTools<ActiveTurn>, deps: ToolDispatchDeps): Promise<ToolResult> {
  const input = inputOf(call.arguments);
  const hookContext = hookContextOf(turn);
  const invocation: ToolInvocation<ActiveTurn> = {
    turn,
    call,
    input: input.json ? input.value : input.text,
    signal: turn.controller.signal,
    permission: permissionHooks(deps.hooks, hookContext, call.name),
  };
  const entry = tools.lookup(call.name);
  if (!entry) {
    const output = `Unknown tool "${call.name}". Available: ${tools.names().join(', ')}`;
    return recordToolCall(invocation, deps, async () => ({ success: false, output }), () => invocation.input);
  }
  // What the handler ran with: the model's arguments, or those a PreToolUse hook put in their place.
  let ran = invocation;
  const steps = async (refuse: (refusal: Refusal) => Promise<ToolResult>): Promise<ToolResult> => {
    const checked = entry.args.check(input);
    if (!checked.ok) return refuse({ kind: 'invalidArguments', message: `Invalid arguments for ${call.name}: ${checked.problem}` });
    const pre = await deps.hooks.preToolUse(hookContext, { name: call.name, callId: call.id, argumentsJson: call.arguments });
    if (pre.blocked) return refuse({ kind: 'blocked', text: blockedText(pre.blocked), outcome: hookOutcome(pre.blocked) });
    let args = checked.value;
    if (pre.updatedInput) {
      const rechecked = entry.args.check({ json: true, value: pre.updatedInput });
      if (!rechecked.ok) return refuse({ kind: 'invalidArguments', message: `Invalid arguments for ${call.name} as a PreToolUse hook changed them: ${rechecked.problem}` });
      args = rechecked.value;
      ran = { ...invocation, input: pre.updatedInput, call: { ...call, arguments: JSON.stringify(pre.updatedInput) } };
    }
    if (ran.signal.aborted) return refuse({ kind: 'interrupted' });
    const result = entry.refuse ? await entry.run(args, ran) : await ranSafely(entry, args, ran);
    // A stopped turn's hooks would be stopped at once: PostToolUse hears the calls of a turn that goes on.
    if (!ran.signal.aborted) await deps.hooks.postToolUse(hookContext, { name: call.name, callId: call.id, argumentsJson: ran.call.arguments }, result);
    return result;
  };
  const ownRefuse = entry.refuse;
  if (ownRefuse) return steps((refusal) => ownRefuse(refusal, invocation));
  return recordToolCall(invocation, deps, () => steps(async (refusal) => ({ success: false, output: refusalText(refusal) })), () => ran.input);
}

/** A handler without its own item: its output cut to what the model reads; a throw is a failed result (PostToolUse hears it), never a failed turn. */
async function ranSafely(entry: ToolEntry<ActiveTurn>, args: unknown, invocation: ToolInvocation<ActiveTurn>): Promise<ToolResult> {
  try {
    const result = await entry.run(args, invocation);
    return { success: result.success, output: cut(result.output) };
  } catch (error) {
    return { success: false, output: `${entry.spec.name} failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** PermissionRequest hooks bound to one call: the tool's name is the name the model called. */
function permissionHooks(hooks: ToolDispatchDeps['hooks'], context: HookContext, toolName: string): PermissionHooks {
  return {
    async requested(details) {
      const blocked = await hooks.approvalRequested(context, { ...details, toolName });
      return blocked ? { text: blockedText(blocked), outcome: hookOutcome(blocked) } : null;
    },
    async answered(details, decision) {
      // A request that ended with its turn is still told; detached from the stopped turn's signal, or its hooks would be stopped at once.
      const { signal: _stopped, ...detached } = context;
      await hooks.approvalAnswered(decision === 'ended' ? detached : context, { ...details, toolName }, decision);
    },
  };
}

function inputOf(argumentsJson: string): ToolInput {
  if (argumentsJson.trim() === '') return { json: true, value: {} };
  try {
    return { json: true, value: JSON.parse(argumentsJson) as unknown };
  } catch {
    return { json: false, text: argumentsJson };
  }
}

/** A call recorded as a `dynamicToolCall` item: started before hooks and handler run, completed with what the model reads. */
async function recordToolCall(
  invocation: ToolInvocation<ActiveTurn>,
  deps: ToolDispatchDeps,
  run: () => Promise<ToolResult>,
  ranWith: () => unknown,
): Promise<ToolResult> {
  const { turn, call } = invocation;
  const startedAtMs = deps.now();
  const base = {
    type: 'dynamicToolCall' as const,
    namespace: null,
    id: deps.newId(),
    turnId: turn.id,
    createdAtMs: startedAtMs,
    startedAtMs,
    tool: call.name,
    callId: call.id,
    arguments: invocation.input,
  };
  const scope = { threadId: turn.threadId, turnId: turn.id, itemId: base.id, ephemeral: turn.ephemeral };
  const started: ThreadItem = { ...base, status: 'inProgress', completedAtMs: null, contentItems: null, output: null, success: null, durationMs: null };
  deps.events.publish('item/started', { threadId: turn.threadId, turnId: turn.id, item: started, startedAtMs }, scope);
  // A client may take minutes to answer; if the runtime dies meanwhile, the restart records the
  // call as failed instead of losing it (turn-recovery moves pending items into the thread).
  turn.store.pending.save('streaming', turn.threadId, { ...started, status: 'failed', output: 'canceled by restart', success: false });
  // Until it is stored, a window that opens the thread sees it as running (thread/read, thread/resume).
  turn.liveItems.set(started.id, () => started);
  const result = await run();
  const completedAtMs = deps.now();
  const completed: ThreadItem = {
    ...base,
    arguments: ranWith(),
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
  return result;
}

function cut(text: string): string {
  if (text.length <= MAX_TOOL_OUTPUT_CHARS) return text;
  return `${text.slice(0, MAX_TOOL_OUTPUT_CHARS)}\n… [output cut: ${text.length - MAX_TOOL_OUTPUT_CHARS} more characters]`;
}
