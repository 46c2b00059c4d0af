import {
  RpcError,
  type HandlerParamsOf,
  type ResultOf,
  type ThreadGoal,
} from '../../shared/protocol/index.js';
import type { StateStore } from '../store/state-store.js';
import type { EventLog } from './event-log.js';
import type { ThreadManager } from './thread-manager.js';

/** The model's goal tools (turns/goal-tools.ts), named here so the agent-job runner can watch for them without importing turns/. */
export const UPDATE_GOAL = 'update_goal';
export const REPORT_PROGRESS = 'report_progress';

export interface GoalManagerDeps {
  readonly threads: ThreadManager;
  readonly events: EventLog;
  readonly newId: () => string;
  readonly now: () => number;
}

/**
 * Thread goals (seed 001 ThreadGoal). The budget is enforced, not just
 * reported: once the tokens used reach the budget the goal becomes
 * `budgetLimited`, the running turn stops and new turns are refused.
 */
export class GoalManager {
  constructor(private readonly deps: GoalManagerDeps) {}

  get(threadId: string): ThreadGoal | null {
    const { store } = this.deps.threads.require(threadId);
    return store.goals.get(threadId);
  }

  set(params: HandlerParamsOf<'thread/goal/set'>): ResultOf<'thread/goal/set'> {
    const { record, store } = this.deps.threads.requireUnarchived(params.threadId, 'thread/goal/set');
    const existing = store.goals.get(record.id);
    const nowSec = Math.floor(this.deps.now() / 1000);
    if (!existing && !params.objective) {
      throw RpcError.invalidParams('invalid params for thread/goal/set: objective: required for a new goal');
    }
    const tokenBudget = params.tokenBudget === undefined ? (existing?.tokenBudget ?? null) : params.tokenBudget;
    const tokensUsed = existing?.tokensUsed ?? 0;
    let status = params.status ?? existing?.status ?? 'active';
    // Raising the budget above what was used reopens a budget-limited goal.
    if (status === 'budgetLimited' && params.status == null && (tokenBudget === null || tokensUsed < tokenBudget)) {
      status = 'active';
    }
    if (status === 'active' && tokenBudget !== null && tokensUsed >= tokenBudget) status = 'budgetLimited';
    const goal: ThreadGoal = {
      threadId: record.id,
      goalId: existing?.goalId ?? this.deps.newId(),
      objective: params.objective ?? existing!.objective,
      status,
      tokenBudget,
      tokensUsed,
      timeUsedSeconds: existing?.timeUsedSeconds ?? 0,
      createdAt: existing?.createdAt ?? nowSec,
      updatedAt: nowSec,
    };
    this.save(store, goal, null, record.ephemeral);
    return { goal };
  }

  clear(threadId: string): ResultOf<'thread/goal/clear'> {
    const { record, store } = this.deps.threads.requireUnarchived(threadId, 'thread/goal/clear');
    const cleared = this.deps.events.commit(store, () => {
      const deleted = store.goals.delete(record.id);
      if (deleted) this.deps.events.publish('thread/goal/cleared', { threadId: record.id }, { threadId: record.id, ephemeral: record.ephemeral });
      return deleted;
    });
    return { cleared };
  }

  /**
   * The agent's own change (the update_goal tool): only an active goal can be
   * marked complete or blocked; pausing and budgets stay the person's.
   */
  markByAgent(threadId: string, turnId: string, status: 'complete' | 'blocked'): ThreadGoal {
    const { record, store } = this.deps.threads.require(threadId);
    const goal = store.goals.get(threadId);
    if (!goal) throw new Error('this thread has no goal');
    if (goal.status !== 'active') throw new Error(`the goal is ${goal.status}, not active; only an active goal can be marked ${status}`);
    const next: ThreadGoal = { ...goal, status, updatedAt: Math.floor(this.deps.now() / 1000) };
    this.save(store, next, turnId, record.ephemeral);
    return next;
  }

  /** Throws when the goal's budget is spent, so no new work starts. */
  assertCanStart(threadId: string): void {
    const goal = this.get(threadId);
    if (goal?.status === 'budgetLimited') {
      throw RpcError.because(
        'goal.budgetSpent',
        `the thread goal has used its token budget (${goal.tokensUsed} of ${goal.tokenBudget} tokens); raise the budget or clear the goal to continue`,
        { threadId, goal },
      );
    }
  }

  /**
   * Adds a model reply's tokens to an active goal. Returns true when the
   * budget is now exhausted and the turn must stop.
   */
  addTokens(threadId: string, turnId: string, tokens: number): boolean {
    const { record, store } = this.deps.threads.require(threadId);
    const goal = store.goals.get(threadId);
    if (!goal || goal.status !== 'active') return false;
    const tokensUsed = goal.tokensUsed + tokens;
    const exhausted = goal.tokenBudget !== null && tokensUsed >= goal.tokenBudget;
    const next: ThreadGoal = {
      ...goal,
      tokensUsed,
      status: exhausted ? 'budgetLimited' : goal.status,
      updatedAt: Math.floor(this.deps.now() / 1000),
    };
    this.save(store, next, turnId, record.ephemeral);
    return exhausted;
  }

  /** Adds the wall time of a turn to an active (or just-limited) goal. */
  addTime(threadId: string, turnId: string, seconds: number): void {
    const { record, store } = this.deps.threads.require(threadId);
    const goal = store.goals.get(threadId);
    if (!goal || (goal.status !== 'active' && goal.status !== 'budgetLimited') || seconds <= 0) return;
    const next = { ...goal, timeUsedSeconds: goal.timeUsedSeconds + seconds, updatedAt: Math.floor(this.deps.now() / 1000) };
    this.save(store, next, turnId, record.ephemeral);
  }

  /** The goal's row and its announcement land together. */
  private save(store: StateStore, goal: ThreadGoal, turnId: string | null, ephemeral: boolean): void {
    this.deps.events.commit(store, () => {
      store.goals.save(goal);
      this.deps.events.publish('thread/goal/updated', { threadId: goal.threadId, turnId, goal }, { threadId: goal.threadId, turnId, ephemeral });
    });
  }
}
