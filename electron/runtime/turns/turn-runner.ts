import type { TokenUsageBreakdown, TurnFailure } from '../../../shared/protocol/index.js';
import { ModelError, type ModelToolCall } from '../../model/types.js';
import type { EventLog } from '../event-log.js';
import type { GoalManager } from '../goal-manager.js';
import type { ThreadManager } from '../thread-manager.js';
import type { ToolTable } from '../tools/tool-table.js';
import type { ModelBinder } from '../../model/types.js';
import { addUsage, type ActiveTurn } from '../active-turn.js';
import { buildInstructions } from './instructions.js';
import { buildModelHistory } from './model-history.js';
import { ReplyItems } from './reply-items.js';
import type { HookDispatcher } from '../hooks/hook-dispatcher.js';
import { dispatchToolCall } from './tool-dispatch.js';

/** A runaway tool loop is stopped after this many model requests in one turn. */
export const MAX_MODEL_REQUESTS_PER_TURN = 64;

export interface TurnRunnerDeps {
  readonly threads: ThreadManager;
  readonly events: EventLog;
  readonly goals: GoalManager;
  /** Every tool the agent may be offered; each turn's list is a query of it, each call goes through `dispatchToolCall`. */
  readonly tools: ToolTable<ActiveTurn>;
  readonly bindModel: ModelBinder;
  readonly newId: () => string;
  readonly now: () => number;
  /** Thread-wide usage before this turn, for `thread/tokenUsage/updated`. */
  readonly threadUsage: (threadId: string) => ActiveTurn['usage'];
  /** Tool hooks (PreToolUse, PostToolUse, PermissionRequest), run by the dispatcher around every call. */
  readonly hooks: HookDispatcher;
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
    const tools = await deps.tools.forTurn({ threadId: turn.threadId, hasGoal: turn.store.goals.get(turn.threadId) !== null });
    const specs = tools.specs;
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
        tools: specs,
        signal,
      });
      let budgetExhausted = false;
      let requestUsage: TokenUsageBreakdown | null = null;
      // As Codex: a request's usage is announced once its items are complete and its tool calls ran.
      const announceUsage = () => {
        if (!requestUsage) return;
        deps.events.publish(
          'thread/tokenUsage/updated',
          {
            threadId: turn.threadId,
            turnId: turn.id,
            tokenUsage: { total: addUsage(deps.threadUsage(turn.threadId), turn.usage), last: requestUsage, modelContextWindow: binding.contextWindow },
          },
          { threadId: turn.threadId, turnId: turn.id, ephemeral: turn.ephemeral },
        );
      };
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
            requestUsage = requestUsage ? addUsage(requestUsage, event.usage) : event.usage;
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
        announceUsage();
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
        await dispatchToolCall(turn, call, tools, deps);
      }
      announceUsage();
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
