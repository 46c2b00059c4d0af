import type { ThreadGoal, ThreadGoalStatus } from '../../../shared/protocol/thread.js';
import { formatCompact } from './usage.js';

const STATUS_LABELS: Readonly<Record<ThreadGoalStatus, string>> = {
  active: 'Active',
  paused: 'Paused',
  blocked: 'Blocked',
  usageLimited: 'Usage limit reached',
  budgetLimited: 'Budget reached',
  complete: 'Complete',
};

/** A goal's status in words. */
export function goalStatusLabel(status: ThreadGoalStatus): string {
  return STATUS_LABELS[status];
}

/** Tokens used against the budget: "1.2k / 10k tokens", or "1.2k tokens" without a budget. */
export function goalUsage(goal: ThreadGoal): string {
  return goal.tokenBudget === null
    ? `${formatCompact(goal.tokensUsed)} tokens`
    : `${formatCompact(goal.tokensUsed)} / ${formatCompact(goal.tokenBudget)} tokens`;
}

/** Share of the budget used, 0..1 (0 without a budget). */
export function goalProgress(goal: ThreadGoal): number {
  if (goal.tokenBudget === null || goal.tokenBudget <= 0) return 0;
  return Math.min(1, goal.tokensUsed / goal.tokenBudget);
}

/** Reads a budget field: empty is no limit; anything else must be a whole number of at least 1 (commas allowed). */
export function parseBudget(text: string): { readonly ok: true; readonly value: number | null } | { readonly ok: false; readonly message: string } {
  const cleaned = text.replace(/[,\s_]/g, '');
  if (cleaned === '') return { ok: true, value: null };
  const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(cleaned);
  if (!match) return { ok: false, message: 'Enter a number of tokens, like 50000 or 50k.' };
  const multiplier = { '': 1, k: 1_000, m: 1_000_000 }[match[2]!.toLowerCase() as '' | 'k' | 'm'];
  const value = Math.round(Number(match[1]) * multiplier);
  if (value < 1) return { ok: false, message: 'A budget must be at least 1 token.' };
  if (value > 1_000_000_000) return { ok: false, message: 'That budget is too large (at most 1,000,000,000 tokens).' };
  return { ok: true, value };
}
