import { z } from 'zod';
import { defineMethod, perThread } from '../define.js';
import { Turn } from '../thread.js';

/** Codex's `review/start`: a review turn on the thread, of one target. */

/** Codex's `ReviewTarget`: what the review looks at. */
export const ReviewTarget = z.discriminatedUnion('type', [
  /** The working tree: staged, unstaged and untracked files, against HEAD. */
  z.object({ type: z.literal('uncommittedChanges') }),
  /** The changes between the current branch (working tree included) and where it left `branch`. */
  z.object({ type: z.literal('baseBranch'), branch: z.string().min(1).max(1024) }),
  /** The changes one commit introduced; `title` is a label for people (e.g. its subject). */
  z.object({ type: z.literal('commit'), sha: z.string().min(1).max(200), title: z.string().max(1024).nullable().optional() }),
  /** Free-form instructions: the model looks for itself. */
  z.object({ type: z.literal('custom'), instructions: z.string().min(1).max(64 * 1024) }),
]);
export type ReviewTarget = z.infer<typeof ReviewTarget>;

/** Codex 0.169 runs reviews inline on the given thread only. */
export const ReviewDelivery = z.enum(['inline']);

export const ReviewStartParams = z.object({
  threadId: z.string().min(1).max(200),
  target: ReviewTarget,
  delivery: ReviewDelivery.nullable().optional(),
});

export const reviewMethods = {
  'review/start': defineMethod(
    ReviewStartParams,
    z.object({ turn: Turn, reviewThreadId: z.string() }),
    'Start a review turn on the thread: its findings arrive in an exitedReviewMode item.',
    perThread,
  ),
} as const;
