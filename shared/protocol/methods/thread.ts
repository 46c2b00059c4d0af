import { z } from 'zod';
import { TurnEnvironmentParams } from './environment.js';
import { defineMethod, defineNotification, perThread } from '../define.js';
import { ApprovalsReviewer, CodexAskForApproval, nullFields, SandboxPolicy } from '../codex.js';
import { DynamicToolSpec } from './dynamic-tools.js';
import {
  AskForApproval,
  Checkpoint,
  MAX_THREAD_NAME_LENGTH,
  SandboxMode,
  Thread,
  ConversationItem,
  Turn,
  TurnItemsView,
} from '../thread.js';

const ThreadId = z.string().min(1).max(200);
const Path = z.string().min(1).max(4096);

export const ThreadStartParams = z.object({
  /** Codex: the thread's sticky environments (Wheelhouse: `local` only for now; remote ones take jobs). */
  environments: z.array(TurnEnvironmentParams).max(16).nullable().optional(),
  model: z.string().max(200).nullable().optional(),
  modelProvider: z.string().max(200).nullable().optional(),
  cwd: Path.nullable().optional(),
  approvalPolicy: AskForApproval.nullable().optional(),
  sandbox: SandboxMode.nullable().optional(),
  /** Ephemeral threads live in memory only and vanish when the runtime stops. */
  ephemeral: z.boolean().nullable().optional(),
  /** Client-side tools for this thread's turns, answered through `item/tool/call`; kept with the thread. */
  dynamicTools: z.array(DynamicToolSpec).max(128).nullable().optional(),
  /** Wheelhouse: work in a separate copy (a git worktree on a new branch `wheelhouse/<name>`) of the repository at `cwd`; the thread's `cwd` is the copy. */
  worktree: z.boolean().nullable().optional(),
});

/** A page size as Codex sends it (any uint32); Wheelhouse serves at most `max` per page. */
export const PageLimit = (max: number) =>
  z
    .number()
    .int()
    .min(0)
    .transform((n) => Math.min(Math.max(n, 1), max))
    .nullable()
    .optional();

const startNulls = nullFields('activePermissionProfile', 'reasoningEffort', 'serviceTier');

/**
 * Codex's answer to thread/start (and the base of resume and fork): the
 * effective settings — the approval policy and sandbox the thread's commands
 * run under, the app's defaults filled in where the thread chose none.
 */
export const ThreadStartResult = z.object({
  thread: Thread,
  /** The model turns will use (the provider's default when none was chosen). */
  model: z.string(),
  modelProvider: z.string(),
  cwd: z.string(),
  approvalPolicy: CodexAskForApproval,
  approvalsReviewer: ApprovalsReviewer,
  sandbox: SandboxPolicy,
  /** Codex: the folders the thread's tools work in (the thread's `cwd`). */
  runtimeWorkspaceRoots: z.array(z.string()),
  /** Codex: the instruction files (AGENTS.md) read into the thread's instructions; Wheelhouse reads none yet. */
  instructionSources: z.array(z.string()),
  /** Codex: plugins turned off for the thread; Wheelhouse has no plugins. */
  disabledPluginIds: z.array(z.string()),
  /** Codex: when the agent hands work to other agents: only when asked (agent jobs start when a person or the model asks). */
  multiAgentMode: z.enum(['explicitRequestOnly', 'proactive']),
  ...startNulls.shape,
});
/** The Codex start/resume/fork result fields Wheelhouse has no value for. */
export const THREAD_START_CODEX_NULLS = startNulls.values;

/**
 * Codex `ThreadUnreadPosition`: where unread begins — a finished turn whose
 * result the person has not seen, or the thread's start when they marked it unread.
 */
export const ThreadUnreadPosition = z.discriminatedUnion('type', [
  z.object({ type: z.literal('threadStart') }),
  z.object({ type: z.literal('turn'), turnId: z.string() }),
]);
export type ThreadUnreadPosition = z.infer<typeof ThreadUnreadPosition>;

/**
 * Codex `ThreadReadState`: the first unread position (null: read), and a
 * revision that changes with every new result or mark, so a mark made from an
 * older view is refused instead of hiding a result the person never saw.
 */
export const ThreadReadState = z.object({
  firstUnread: ThreadUnreadPosition.nullable(),
  revision: z.string(),
});
export type ThreadReadState = z.infer<typeof ThreadReadState>;

/** Codex `SortDirection`. */
export const SortDirection = z.enum(['asc', 'desc']);
export type SortDirection = z.infer<typeof SortDirection>;
/** The Codex `ThreadSortKey`s Wheelhouse keeps times for. */
export const ThreadSortKey = z.enum(['created_at', 'updated_at']);
export type ThreadSortKey = z.infer<typeof ThreadSortKey>;

export const ThreadListParams = z.object({
  /** Include archived threads (Codex: `archived`); archived-only when `archived` is true. */
  includeArchived: z.boolean().nullable().optional(),
  archived: z.boolean().nullable().optional(),
  cursor: z.string().max(500).nullable().optional(),
  limit: PageLimit(500),
  /** Codex: order by creation (default) or by the last change; Codex's `recency_at` and `section_position` are not offered. */
  sortKey: ThreadSortKey.nullable().optional(),
  /** Codex: newest first (`desc`, the default) or oldest first. */
  sortDirection: SortDirection.nullable().optional(),
});

export const ThreadListResult = z.object({
  data: z.array(Thread),
  nextCursor: z.string().nullable(),
  /** Codex: a cursor for the opposite `sortDirection`, at the page's first thread (listed again); null for an empty page. */
  backwardsCursor: z.string().nullable(),
  /** Codex: each listed thread's read state, by thread id (ephemeral threads keep none, so they have no key). */
  readStates: z.record(z.string(), ThreadReadState),
});

export const ThreadReadParams = z.object({
  threadId: ThreadId,
  /** Fill `thread.turns` (with their items). The flat `items` list is always returned. */
  includeTurns: z.boolean().nullable().optional(),
});

/**
 * Wheelhouse: the seq of the newest notification this answer already reflects
 * (its items of a running turn carry the text and output streamed so far), so
 * a client applying notifications on top skips the deltas at or below it.
 */
const EventSeqField = z.number().int().nonnegative();

export const ThreadReadResult = z.object({
  thread: Thread,
  /** Codex: what the person has read of the thread; null for an ephemeral thread (it keeps no read state). */
  readState: ThreadReadState.nullable(),
  /** Wheelhouse: every item of the thread once, in order (fork markers included). */
  items: z.array(ConversationItem),
  checkpoint: Checkpoint.nullable(),
  eventSeq: EventSeqField,
});

export const ThreadSetNameParams = z.object({
  threadId: ThreadId,
  name: z
    .string()
    .max(MAX_THREAD_NAME_LENGTH, `name must be at most ${MAX_THREAD_NAME_LENGTH} characters`)
    .refine((name) => name.trim().length > 0, 'name must not be blank'),
});

export const ThreadIdParams = z.object({ threadId: ThreadId });
export const EmptyResult = z.object({});
export const ThreadResult = z.object({ thread: Thread });

export const ThreadReadStateUpdateParams = z.object({
  threadId: ThreadId,
  /** What the person did: read the thread, or mark it unread again. */
  operation: z.discriminatedUnion('type', [z.object({ type: z.literal('read') }), z.object({ type: z.literal('unread') })]),
  /** The `revision` of the read state the client showed; a newer one refuses the change (`thread.readStateConflict`). */
  expectedRevision: z.string().min(1).max(200),
});
export const ThreadReadStateUpdateResult = z.object({ readState: ThreadReadState });

export const ThreadLoadedListParams = z.object({
  cursor: z.string().max(500).nullable().optional(),
  limit: PageLimit(1000),
});
export const ThreadLoadedListResult = z.object({
  data: z.array(z.string()),
  nextCursor: z.string().nullable(),
});

/** Codex `ThreadResumeInitialTurnsPageParams`: a `thread/turns/list` page to answer with. */
export const InitialTurnsPageParams = z.object({
  limit: PageLimit(100),
  sortDirection: SortDirection.nullable().optional(),
  itemsView: TurnItemsView.nullable().optional(),
});

export const ThreadResumeParams = z.object({
  threadId: ThreadId,
  model: z.string().max(200).nullable().optional(),
  modelProvider: z.string().max(200).nullable().optional(),
  cwd: Path.nullable().optional(),
  /** Codex: answer without `thread.turns` (the client pages them with `thread/turns/list`). */
  excludeTurns: z.boolean().nullable().optional(),
  /** Codex: also answer with this page of turns (`initialTurnsPage`). */
  initialTurnsPage: InitialTurnsPageParams.nullable().optional(),
});

export const ThreadForkParams = z.object({
  threadId: ThreadId,
  /** Fork after this turn (default: after the last one). */
  lastTurnId: z.string().min(1).nullable().optional(),
  model: z.string().max(200).nullable().optional(),
  modelProvider: z.string().max(200).nullable().optional(),
  cwd: Path.nullable().optional(),
  ephemeral: z.boolean().nullable().optional(),
});

export const ThreadRollbackParams = z.object({
  threadId: ThreadId,
  /** How many of the newest turns to drop. */
  numTurns: z.number().int().min(1).max(100_000),
});

/**
 * Resume and fork answer like start, plus the thread's turns with their
 * items (as Codex) and every item once more in Wheelhouse's flat `items` list.
 */
/**
 * Codex's collaboration mode: `plan` or `default`, with the settings it runs with. Wheelhouse has
 * no plan mode, so every thread is in Codex's default mode (the model's own effort, no mode
 * instructions), and resume says so as Codex does for a thread in that mode.
 */
export const CollaborationMode = z.object({
  mode: z.enum(['plan', 'default']),
  settings: z.object({
    model: z.string(),
    reasoning_effort: z.string().nullable().optional(),
    developer_instructions: z.string().nullable().optional(),
  }),
});
export type CollaborationMode = z.infer<typeof CollaborationMode>;

/** Codex `TurnsPage`: what `thread/turns/list` answers. */
export const TurnsPage = z.object({
  data: z.array(Turn),
  /** Codex: after the page's last turn; null when there are no more. */
  nextCursor: z.string().nullable(),
  /** Codex: at the page's first turn (listed again), for the opposite `sortDirection`; null for an empty page. */
  backwardsCursor: z.string().nullable(),
});

export const ThreadLoadResult = ThreadStartResult.extend({
  initialTurnsPage: TurnsPage.nullable(),
  /** Codex: `thread/turns/list` with `sortDirection: "desc"` from here pages the history back, starting with the newest turn. */
  turnsBackwardsCursor: z.string().nullable(),
  /** Codex: `thread/items/list` with `sortDirection: "desc"` from here pages the items back, starting with the newest. */
  itemsBackwardsCursor: z.string().nullable(),
  collaborationMode: CollaborationMode.nullable(),
  items: z.array(ConversationItem),
  eventSeq: EventSeqField,
});

export const threadMethods = {
  'thread/start': defineMethod(ThreadStartParams, ThreadStartResult, 'Create a new thread.'),
  'thread/list': defineMethod(ThreadListParams, ThreadListResult, 'List threads, newest created first unless sortKey/sortDirection say otherwise.'),
  'thread/read': defineMethod(ThreadReadParams, ThreadReadResult, 'Read a thread with its items.'),
  'thread/name/set': defineMethod(ThreadSetNameParams, EmptyResult, 'Rename a thread.', perThread),
  'thread/archive': defineMethod(ThreadIdParams, EmptyResult, 'Archive a thread.', perThread),
  'thread/unarchive': defineMethod(ThreadIdParams, ThreadResult, 'Restore an archived thread.', perThread),
  'thread/resume': defineMethod(ThreadResumeParams, ThreadLoadResult, 'Load a stored thread to continue it.', perThread),
  'thread/fork': defineMethod(ThreadForkParams, ThreadLoadResult, 'Copy a thread into a new one.', perThread),
  'thread/rollback': defineMethod(ThreadRollbackParams, ThreadResult, 'Drop the newest turns.', perThread),
  'thread/readState/update': defineMethod(
    ThreadReadStateUpdateParams,
    ThreadReadStateUpdateResult,
    'Mark a thread read or unread.',
    perThread,
  ),
  'thread/loaded/list': defineMethod(
    ThreadLoadedListParams,
    ThreadLoadedListResult,
    'Ids of threads loaded in memory.',
  ),
} as const;

export const threadNotifications = {
  'thread/started': defineNotification(z.object({ thread: Thread }), 'A thread was created.'),
  'thread/archived': defineNotification(z.object({ threadId: z.string() }), 'A thread was archived.'),
  'thread/unarchived': defineNotification(
    z.object({ threadId: z.string() }),
    'A thread was restored from the archive.',
  ),
  'thread/name/updated': defineNotification(
    z.object({ threadId: z.string(), threadName: z.string().nullable() }),
    'A thread was renamed.',
  ),
  'thread/readState/changed': defineNotification(
    z.object({ threadId: z.string(), readState: ThreadReadState }),
    'A thread has a new result to read, or was marked read or unread.',
  ),
} as const;
