import { z } from 'zod';
import { defineMethod, defineNotification, perThread } from '../define.js';
import { Turn, TurnError, UserInput } from '../thread.js';
import { TurnInputItems, TurnStartParams } from './turn.js';

/**
 * Queued turns (seed 003: Codex's development-branch `thread/queue/*`), plus
 * the shapes Codex 0.169 shipped as "queued submissions" so clients written
 * for current Codex work too. The seed's shapes are primary; where the two
 * differ in a request, either spelling is accepted, and every queued row is
 * sent as one object that satisfies both (`QueuedTurn` ⊇ `QueuedSubmission`).
 */

const ThreadId = z.string().min(1).max(200);
const QueuedTurnId = z.string().min(1).max(200);
const TurnInput = TurnStartParams.shape.input;

/**
 * A queued turn's `turn/start` params, kept whole as the client sent them
 * (seed 003): every field, Codex's or not, is stored and echoed back. They are
 * checked as `turn/start`'s when the turn starts; input that cannot start a
 * turn (empty) is accepted here and fails then, leaving the row failed.
 */
export const QueuedTurnStartParams = TurnStartParams.extend({ input: TurnInputItems }).loose();
export type QueuedTurnStartParams = z.output<typeof QueuedTurnStartParams>;
const ClientMetadata = z.record(z.string(), z.string());

/** Default and largest page of thread/queue/list (seed 003). */
export const QUEUE_LIST_DEFAULT_LIMIT = 25;
export const QUEUE_LIST_MAX_LIMIT = 100;

export const QueuedTurnStatus = z.discriminatedUnion('type', [
  z.object({ type: z.literal('pending') }),
  z.object({ type: z.literal('failed'), error: TurnError }),
]);
export type QueuedTurnStatus = z.infer<typeof QueuedTurnStatus>;

/**
 * One visible queued turn. `id`, `turnStartParams`, `status` are the seed's
 * QueuedTurn; `clientUserMessageId`, `input`, `responsesapiClientMetadata`
 * make the same object a valid Codex 0.169 QueuedSubmission.
 */
export const QueuedTurn = z.object({
  id: z.string(),
  turnStartParams: QueuedTurnStartParams,
  status: QueuedTurnStatus,
  clientUserMessageId: z.string(),
  input: z.array(UserInput),
  responsesapiClientMetadata: ClientMetadata.nullable(),
});
export type QueuedTurn = z.infer<typeof QueuedTurn>;

/** Seed: `{threadId, turnStartParams}`. Codex 0.169: `{threadId, input, clientUserMessageId}`. */
export const ThreadQueueAddParams = z
  .object({
    threadId: ThreadId,
    // Null means "not given" for every optional field (Codex clients send null).
    turnStartParams: QueuedTurnStartParams.nullable().optional(),
    input: TurnInput.nullable().optional(),
    clientUserMessageId: z.string().min(1).max(200).nullable().optional(),
    responsesapiClientMetadata: ClientMetadata.nullable().optional(),
  })
  .superRefine((p, ctx) => {
    if (p.turnStartParams != null) {
      if (p.input != null || p.clientUserMessageId != null) {
        ctx.addIssue({ code: 'custom', path: ['input'], message: 'give either turnStartParams or input, not both' });
      }
      return;
    }
    if (p.input == null) {
      ctx.addIssue({ code: 'custom', path: ['turnStartParams'], message: 'turnStartParams (or input with clientUserMessageId) is required' });
    }
    if (p.clientUserMessageId == null) {
      ctx.addIssue({ code: 'custom', path: ['clientUserMessageId'], message: 'clientUserMessageId is required with input' });
    }
  });
export type ThreadQueueAddParams = z.output<typeof ThreadQueueAddParams>;

/**
 * Codex's `queuedSubmission` is always sent (a Codex client reads nothing else); a request in
 * the seed vocabulary also gets the same row as `queuedTurn`.
 */
export const ThreadQueueAddResult = z.object({
  queuedSubmission: QueuedTurn,
  queuedTurn: QueuedTurn.optional(),
});

export const ThreadQueueListParams = z.object({
  threadId: ThreadId,
  /** Offset into the visible queue, as a decimal string (seed 003). */
  cursor: z.string().max(20).nullable().optional(),
  limit: z.number().int().min(0).nullable().optional(),
});

/** A queued row named by the seed's `queuedTurnId` or Codex 0.169's `queuedSubmissionId`. */
function oneQueuedId<T extends { queuedTurnId?: string | null | undefined; queuedSubmissionId?: string | null | undefined }>(
  p: T,
  ctx: z.RefinementCtx,
): void {
  if (!p.queuedTurnId && !p.queuedSubmissionId) {
    ctx.addIssue({ code: 'custom', path: ['queuedTurnId'], message: 'queuedTurnId (or queuedSubmissionId) is required' });
  }
}

export const ThreadQueueDeleteParams = z
  .object({ threadId: ThreadId, queuedTurnId: QueuedTurnId.nullable().optional(), queuedSubmissionId: QueuedTurnId.nullable().optional() })
  .superRefine(oneQueuedId);

export const ThreadQueueReorderParams = z
  .object({
    threadId: ThreadId,
    queuedTurnIds: z.array(QueuedTurnId).max(10_000).nullable().optional(),
    queuedSubmissionIds: z.array(QueuedTurnId).max(10_000).nullable().optional(),
  })
  .superRefine((p, ctx) => {
    if (!p.queuedTurnIds && !p.queuedSubmissionIds) {
      ctx.addIssue({ code: 'custom', path: ['queuedTurnIds'], message: 'queuedTurnIds (or queuedSubmissionIds) is required' });
    }
  });

/** Codex 0.169: replace the input of a queued row that has not started. */
export const ThreadQueueUpdateParams = z
  .object({
    threadId: ThreadId,
    queuedSubmissionId: QueuedTurnId.nullable().optional(),
    queuedTurnId: QueuedTurnId.nullable().optional(),
    input: TurnInput,
    /** Non-empty metadata replaces the row's metadata; omitted or empty keeps it. */
    responsesapiClientMetadata: ClientMetadata.nullable().optional(),
  })
  .superRefine(oneQueuedId);

/** Codex 0.169: start a queued row now (the head of the queue when no id is given). */
export const ThreadQueueStartParams = z.object({
  threadId: ThreadId,
  queuedSubmissionId: QueuedTurnId.nullable().optional(),
});

/** Wheelhouse's own: no filter; unknown fields are refused rather than ignored. */
export const ThreadQueueCountsParams = z.object({}).strict();

/** Visible queued turns (pending and failed) per thread id; threads with none are left out. */
export const ThreadQueueCountsResult = z.object({ counts: z.record(z.string(), z.number().int().positive()) });

export const queueMethods = {
  'thread/queue/add': defineMethod(
    ThreadQueueAddParams,
    ThreadQueueAddResult,
    'Persist a future turn/start for a thread; it starts when the thread is idle.',
    perThread,
  ),
  'thread/queue/list': defineMethod(
    ThreadQueueListParams,
    z.object({ data: z.array(QueuedTurn), nextCursor: z.string().nullable() }),
    'Page through the visible queued turns (pending and failed) in queue order.',
  ),
  'thread/queue/counts': defineMethod(
    ThreadQueueCountsParams,
    ThreadQueueCountsResult,
    'How many visible queued turns (pending and failed) each thread has, in one answer (ours: the sidebar counts).',
  ),
  'thread/queue/delete': defineMethod(
    ThreadQueueDeleteParams,
    z.object({ deleted: z.boolean() }),
    'Remove a visible queued turn.',
    perThread,
  ),
  'thread/queue/reorder': defineMethod(
    ThreadQueueReorderParams,
    z.object({ queuedTurns: z.array(QueuedTurn) }),
    'Replace the visible queue order; must name every visible queued turn once.',
    perThread,
  ),
  'thread/queue/update': defineMethod(
    ThreadQueueUpdateParams,
    z.object({ queuedSubmission: QueuedTurn }),
    'Replace the input of a visible queued turn.',
    perThread,
  ),
  'thread/queue/start': defineMethod(
    ThreadQueueStartParams,
    z.object({ turn: Turn }),
    'Start a queued turn now, on an idle thread.',
    perThread,
  ),
} as const;

export const queueNotifications = {
  'thread/queue/changed': defineNotification(
    z.object({ threadId: z.string(), queuedTurns: z.array(QueuedTurn) }),
    'The visible queue of a thread changed; carries the whole visible queue.',
  ),
} as const;
