import { z } from 'zod';
import { TurnEnvironmentParams } from './environment.js';
import { defineMethod, defineNotification, perThread } from '../define.js';
import { ThreadItem, ThreadStatus, ThreadTokenUsage, Turn, UserInput } from '../thread.js';

/** Largest total text of one turn's input (characters). */
export const MAX_TURN_INPUT_CHARS = 256 * 1024;

/** Input items as a client sends them, within the size limit (a queued turn's may still be empty). */
export const TurnInputItems = z
  .array(UserInput)
  .refine(
    (items) => items.reduce((n, i) => n + i.text.length, 0) <= MAX_TURN_INPUT_CHARS,
    `turn input exceeds ${MAX_TURN_INPUT_CHARS} characters`,
  );

/** The input of a turn that starts now: something to say. */
const TurnInput = TurnInputItems.refine(
  (items) => items.some((i) => i.text.trim().length > 0),
  'turn input must not be empty',
);

export const TurnStartParams = z.object({
  threadId: z.string().min(1),
  input: TurnInput,
  /** Override the model for this turn and the ones after it. */
  model: z.string().min(1).max(200).nullable().optional(),
  cwd: z.string().min(1).max(4096).nullable().optional(),
  /** Codex: environments for this turn and the ones after it (Wheelhouse: `local` only for now; remote ones take jobs). */
  environments: z.array(TurnEnvironmentParams).max(16).nullable().optional(),
});

export const TurnSteerParams = z.object({
  threadId: z.string().min(1),
  input: TurnInput,
  /** Must name the running turn, so a steer never lands in a turn the user did not see. */
  expectedTurnId: z.string().min(1),
});

export const TurnInterruptParams = z.object({
  threadId: z.string().min(1),
  turnId: z.string().min(1),
});

export const turnMethods = {
  'turn/start': defineMethod(TurnStartParams, z.object({ turn: Turn }), 'Start a turn; it runs in the background.', perThread),
  'turn/steer': defineMethod(
    TurnSteerParams,
    z.object({ turnId: z.string() }),
    'Add input to the running turn.',
    perThread,
  ),
  'turn/interrupt': defineMethod(
    TurnInterruptParams,
    z.object({}),
    'Stop a running turn; resolves once it has ended.',
    perThread,
  ),
} as const;

const ItemScope = { threadId: z.string(), turnId: z.string() };

export const turnNotifications = {
  'turn/started': defineNotification(z.object({ threadId: z.string(), turn: Turn }), 'A turn began.'),
  'turn/completed': defineNotification(
    z.object({ threadId: z.string(), turn: Turn }),
    'A turn ended (completed, interrupted or failed).',
  ),
  'item/started': defineNotification(
    z.object({ ...ItemScope, item: ThreadItem, startedAtMs: z.number().int() }),
    'An item began streaming.',
  ),
  'item/completed': defineNotification(
    z.object({ ...ItemScope, item: ThreadItem, completedAtMs: z.number().int(), contentTokenCount: z.null() }),
    'An item is final and persisted.',
  ),
  'item/agentMessage/delta': defineNotification(
    z.object({ ...ItemScope, itemId: z.string(), delta: z.string() }),
    'Text of the agent reply.',
  ),
  'item/reasoning/textDelta': defineNotification(
    z.object({ ...ItemScope, itemId: z.string(), delta: z.string(), contentIndex: z.number().int() }),
    'Reasoning text (reasoning channel).',
  ),
  'thread/tokenUsage/updated': defineNotification(
    z.object({ ...ItemScope, tokenUsage: ThreadTokenUsage }),
    'Token usage of the thread after a model reply.',
  ),
  'thread/status/changed': defineNotification(
    z.object({ threadId: z.string(), status: ThreadStatus }),
    'A thread became active, idle or unloaded.',
  ),
  'turn/diff/updated': defineNotification(
    z.object({ threadId: z.string(), turnId: z.string(), diff: z.string() }),
    "The turn's unified diff so far (every file it changed), after each change.",
  ),
  'turn/retrying': defineNotification(
    z.object({ ...ItemScope, attempt: z.number().int(), delayMs: z.number(), reason: z.string() }),
    'The model request failed and is being retried.',
  ),
} as const;
