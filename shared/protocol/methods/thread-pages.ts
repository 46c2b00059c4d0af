import { z } from 'zod';
import { defineMethod } from '../define.js';
import { ThreadItem, TurnItemsView } from '../thread.js';
import { PageLimit, SortDirection, TurnsPage } from './thread.js';

/**
 * Codex's paged history: a thread's turns (`thread/turns/list`, newest first by default) and its
 * items (`thread/items/list`, oldest first by default), a page at a time, with opaque cursors a
 * client passes back (`nextCursor` onwards, `backwardsCursor` with the opposite direction). A
 * thread/resume answer carries the cursors that page back from the newest turn and item.
 */

const ThreadId = z.string().min(1).max(200);
const Cursor = z.string().min(1).max(1000);

export const ThreadTurnsListParams = z.object({
  threadId: ThreadId,
  cursor: Cursor.nullable().optional(),
  /** Codex: 25 by default, at most 100. */
  limit: PageLimit(100),
  /** Codex: newest first (`desc`) by default. */
  sortDirection: SortDirection.nullable().optional(),
  /** Codex: `summary` by default (the turn's first user message and last agent message), `full`, or `notLoaded`. */
  itemsView: TurnItemsView.nullable().optional(),
});

/** Codex `ThreadItemsListAnchor`: an item of `turnId`, not itself listed (after it ascending, before it descending). */
export const ThreadItemsListAnchor = z.object({ type: z.literal('item'), itemId: z.string().min(1).max(200) });

/** Codex `ThreadItemOutputDeferral`: accepted; Wheelhouse always sends the whole output (`outputDeferred: false`). */
export const ThreadItemOutputDeferral = z.object({
  commandExecution: z.boolean().optional(),
  mcpToolCall: z.boolean().optional(),
});

export const ThreadItemsListParams = z.object({
  threadId: ThreadId,
  /** Codex: a cursor from an earlier page, or an item anchor in `turnId`. */
  cursor: z.union([Cursor, ThreadItemsListAnchor]).nullable().optional(),
  limit: PageLimit(500),
  /** Codex: oldest first (`asc`) by default. */
  sortDirection: SortDirection.nullable().optional(),
  /** Codex: only this turn's items; every turn's when absent. */
  turnId: z.string().min(1).max(200).nullable().optional(),
  deferOutput: ThreadItemOutputDeferral.nullable().optional(),
});

/** Codex `ThreadItemEntry`: an item with its turn and times. */
export const ThreadItemEntry = z.object({
  item: ThreadItem,
  turnId: z.string(),
  startedAtMs: z.number().int().nullable(),
  completedAtMs: z.number().int().nullable(),
  /** Codex: the output was left out (fetch it with thread/items/read); Wheelhouse never leaves it out. */
  outputDeferred: z.boolean(),
});
export type ThreadItemEntry = z.infer<typeof ThreadItemEntry>;

export const ThreadItemsListResult = z.object({
  data: z.array(ThreadItemEntry),
  nextCursor: z.string().nullable(),
  backwardsCursor: z.string().nullable(),
});

export const threadPageMethods = {
  'thread/turns/list': defineMethod(ThreadTurnsListParams, TurnsPage, "A page of a thread's turns, newest first unless sortDirection says otherwise."),
  'thread/items/list': defineMethod(ThreadItemsListParams, ThreadItemsListResult, "A page of a thread's items, oldest first unless sortDirection says otherwise."),
} as const;
