import { describe, expect, it } from 'vitest';
import type { ThreadGoal } from '../../../shared/protocol/thread.js';
import { goalProgress, goalUsage, parseBudget } from './goal.js';

const goal = (tokensUsed: number, tokenBudget: number | null): ThreadGoal => ({
  threadId: 't',
  goalId: 'g',
  objective: 'Ship it',
  status: 'active',
  tokenBudget,
  tokensUsed,
  timeUsedSeconds: 0,
  createdAt: 0,
  updatedAt: 0,
});

describe('the goal editor', () => {
  it('reads budgets as people type them', () => {
    expect(parseBudget('')).toEqual({ ok: true, value: null });
    expect(parseBudget('50,000')).toEqual({ ok: true, value: 50_000 });
    expect(parseBudget('50k')).toEqual({ ok: true, value: 50_000 });
    expect(parseBudget('1.5M')).toEqual({ ok: true, value: 1_500_000 });
    expect(parseBudget('lots')).toMatchObject({ ok: false });
    expect(parseBudget('0')).toMatchObject({ ok: false });
  });

  it('shows usage against the budget', () => {
    expect(goalUsage(goal(1_234, 10_000))).toBe('1.2k / 10k tokens');
    expect(goalUsage(goal(900, null))).toBe('900 tokens');
    expect(goalProgress(goal(12_000, 10_000))).toBe(1);
  });
});
