import { z } from 'zod';
import { defineMethod, defineNotification, perThread } from '../define.js';
import { ThreadGoal, ThreadGoalStatus } from '../thread.js';

const ThreadId = z.string().min(1);

export const ThreadGoalSetParams = z.object({
  threadId: ThreadId,
  objective: z.string().trim().min(1, 'objective must not be blank').max(4000).nullable().optional(),
  status: ThreadGoalStatus.nullable().optional(),
  /** Tokens the goal may spend; null removes the limit. */
  tokenBudget: z.number().int().min(1).max(1_000_000_000).nullable().optional(),
});

export const goalMethods = {
  'thread/goal/set': defineMethod(
    ThreadGoalSetParams,
    z.object({ goal: ThreadGoal }),
    'Create or change the thread goal.',
    perThread,
  ),
  'thread/goal/get': defineMethod(
    z.object({ threadId: ThreadId }),
    z.object({ goal: ThreadGoal.nullable() }),
    'The thread goal, if any.',
  ),
  'thread/goal/clear': defineMethod(
    z.object({ threadId: ThreadId }),
    /** Codex: whether there was a goal to remove. */
    z.object({ cleared: z.boolean() }),
    'Remove the thread goal.',
    perThread,
  ),
} as const;

export const goalNotifications = {
  'thread/goal/updated': defineNotification(
    z.object({ threadId: z.string(), turnId: z.string().nullable(), goal: ThreadGoal }),
    'A goal was set, or its usage or status changed.',
  ),
  'thread/goal/cleared': defineNotification(z.object({ threadId: z.string() }), 'A goal was removed.'),
} as const;
