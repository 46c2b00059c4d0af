import { z } from 'zod';
import { commandExecutionFields } from './command-execution.js';
import { fileChangeFields } from './file-change.js';
import {
  CodexErrorInfo,
  CodexSessionSource,
  DynamicToolCallOutputContentItem,
  nullFields,
  ThreadActiveFlag,
} from './codex.js';

/** Where a thread came from (seed 001 SessionSource). */
export const SessionSource = z.enum(['interactive', 'resume', 'fork', 'api', 'unknown']);
export type SessionSource = z.infer<typeof SessionSource>;

/** Persisted lifecycle status (seed 000/001 ThreadStatus). */
export const ThreadLifecycle = z.enum(['running', 'idle', 'completed', 'failed', 'paused', 'archived']);
export type ThreadLifecycle = z.infer<typeof ThreadLifecycle>;

/** Runtime status in the Codex v2 shape: is the thread loaded, and is a turn running. */
export const ThreadStatus = z.discriminatedUnion('type', [
  z.object({ type: z.literal('notLoaded') }),
  z.object({ type: z.literal('idle') }),
  z.object({ type: z.literal('systemError') }),
  z.object({ type: z.literal('active'), activeFlags: z.array(ThreadActiveFlag) }),
]);
export type ThreadStatus = z.infer<typeof ThreadStatus>;

export const AskForApproval = z.enum(['untrusted', 'on-failure', 'on-request', 'never']);
export type AskForApproval = z.infer<typeof AskForApproval>;

export const SandboxMode = z.enum(['read-only', 'workspace-write', 'danger-full-access']);
export type SandboxMode = z.infer<typeof SandboxMode>;

export const GitInfo = z.object({
  sha: z.string().nullable(),
  branch: z.string().nullable(),
  originUrl: z.string().nullable(),
});
export type GitInfo = z.infer<typeof GitInfo>;

/** The UTF-8 length of a text (shared code runs where neither Buffer nor TextEncoder is typed). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** Codex `ByteRange`: a span of a text input's UTF-8 bytes. */
export const ByteRange = z.looseObject({ start: z.number().int().min(0), end: z.number().int().min(0) });

/** Codex `TextElement`: a span of the text a client UI renders as something else (a mention, a pasted image). */
export const TextElement = z.looseObject({
  byteRange: ByteRange,
  placeholder: z.string().nullable().optional(),
});
export type TextElement = z.infer<typeof TextElement>;

/**
 * One piece of user input (Codex UserInput; text only for now). It is kept as
 * the client sent it: Codex's `text_elements` (its default, `[]`, when not
 * sent) and any field Codex adds later are stored and echoed back.
 */
export const UserInput = z.discriminatedUnion('type', [
  z
    .looseObject({ type: z.literal('text'), text: z.string(), text_elements: z.array(TextElement).default([]) })
    .superRefine((input, ctx) => {
      const bytes = utf8Length(input.text);
      input.text_elements.forEach(({ byteRange }, index) => {
        if (byteRange.start > byteRange.end || byteRange.end > bytes) {
          ctx.addIssue({
            code: 'custom',
            path: ['text_elements', index, 'byteRange'],
            message: `byteRange ${byteRange.start}..${byteRange.end} is not inside the text's ${bytes} bytes`,
          });
        }
      });
    }),
]);
export type UserInput = z.infer<typeof UserInput>;

/** Input stored before `text_elements` was kept had none: Codex's default. */
export function withTextElements(input: Omit<UserInput, 'text_elements'> & { text_elements?: TextElement[] }): UserInput {
  return { ...input, text_elements: input.text_elements ?? [] } as UserInput;
}

/** A text input as Codex's own clients send one: no special spans. */
export function textInput(text: string): UserInput {
  return { type: 'text', text, text_elements: [] };
}

export const ToolCallStatus = z.enum(['inProgress', 'completed', 'failed']);

/**
 * Items of a conversation in Codex's `ThreadItem` shapes; each belongs to a
 * turn. Wheelhouse adds `turnId` and `createdAtMs` to every item.
 */
const itemBase = {
  id: z.string(),
  turnId: z.string().nullable(),
  createdAtMs: z.number().int(),
  /** Codex: Unix ms when the item started and completed (null until it has). */
  startedAtMs: z.number().int().nullable(),
  completedAtMs: z.number().int().nullable(),
};
const userMessageNulls = nullFields('clientId');
const agentMessageNulls = nullFields('delivery', 'memoryCitation', 'moderation', 'phase', 'questions');
/** The Codex fields of items Wheelhouse has no value for, sent as null (spread them when building an item). */
export const ITEM_CODEX_NULLS = {
  userMessage: userMessageNulls.values,
  agentMessage: agentMessageNulls.values,
  dynamicToolCall: { namespace: null },
} as const;

export const ThreadItem = z.discriminatedUnion('type', [
  z.object({ ...itemBase, type: z.literal('userMessage'), content: z.array(UserInput), ...userMessageNulls.shape }),
  z.object({
    ...itemBase,
    type: z.literal('agentMessage'),
    text: z.string(),
    ...agentMessageNulls.shape,
    /** True when the reply was cut off (stopped, failed, or Wheelhouse stopped mid-stream): `text` is what had arrived. */
    incomplete: z.boolean().optional(),
  }),
  z.object({
    ...itemBase,
    type: z.literal('reasoning'),
    summary: z.array(z.string()),
    content: z.array(z.string()),
  }),
  /**
   * A call of one of Wheelhouse's own (read-only) tools: Codex's
   * `dynamicToolCall`. `contentItems` carries the output for Codex clients;
   * `callId` and `output` (the same text) are Wheelhouse's.
   */
  z.object({
    ...itemBase,
    type: z.literal('dynamicToolCall'),
    tool: z.string(),
    namespace: z.null(),
    callId: z.string(),
    arguments: z.unknown(),
    status: ToolCallStatus,
    contentItems: z.array(DynamicToolCallOutputContentItem).nullable(),
    output: z.string().nullable(),
    success: z.boolean().nullable(),
    durationMs: z.number().int().nullable(),
  }),
  z.object({ ...itemBase, ...commandExecutionFields }),
  /** An apply_patch call (Codex `FileChangeThreadItem`). */
  z.object({ ...itemBase, ...fileChangeFields }),
  z.object({
    ...itemBase,
    /** A call of an MCP server's tool (Codex McpToolCallThreadItem). */
    type: z.literal('mcpToolCall'),
    server: z.string(),
    tool: z.string(),
    status: ToolCallStatus,
    arguments: z.unknown(),
    /** The server's result: `content` blocks (text, image, resource_link, ...) and `structuredContent`. */
    result: z.object({ content: z.array(z.unknown()), structuredContent: z.unknown(), _meta: z.unknown() }).nullable(),
    error: z.object({ message: z.string() }).nullable(),
    durationMs: z.number().int().nullable(),
    appContext: z.null(),
    mcpAppResourceUri: z.null(),
    mcpAppUi: z.null(),
    pluginId: z.null(),
    readOnlyHint: z.boolean().nullable(),
  }),
]);
export type ThreadItem = z.infer<typeof ThreadItem>;

/**
 * Where a fork begins, shown in the conversation. Codex has no such item, so
 * it never travels in `turn.items` or item notifications: only in the flat
 * `items` list Wheelhouse adds to thread/read, resume and fork (Codex clients
 * read `thread.forkedFromId`).
 */
export const ForkMarkerItem = z.object({
  ...itemBase,
  type: z.literal('forkMarker'),
  fromThreadId: z.string(),
  fromThreadName: z.string().nullable(),
});
export type ForkMarkerItem = z.infer<typeof ForkMarkerItem>;

/** Everything a thread stores and the flat `items` lists carry: Codex items plus the fork marker. */
export const ConversationItem = z.discriminatedUnion('type', [...ThreadItem.options, ForkMarkerItem]);
export type ConversationItem = z.infer<typeof ConversationItem>;
export type ThreadItemType = ConversationItem['type'];

export const TokenUsageBreakdown = z.object({
  totalTokens: z.number().int(),
  inputTokens: z.number().int(),
  cachedInputTokens: z.number().int(),
  /** Codex: input tokens written to the provider's prompt cache; 0 when the provider does not say. */
  cacheWriteInputTokens: z.number().int().default(0),
  outputTokens: z.number().int(),
  reasoningOutputTokens: z.number().int(),
});
export type TokenUsageBreakdown = z.infer<typeof TokenUsageBreakdown>;

export const ThreadTokenUsage = z.object({
  total: TokenUsageBreakdown,
  last: TokenUsageBreakdown,
  modelContextWindow: z.number().int().nullable(),
});
export type ThreadTokenUsage = z.infer<typeof ThreadTokenUsage>;

export const TurnStatus = z.enum(['inProgress', 'completed', 'interrupted', 'failed']);
export type TurnStatus = z.infer<typeof TurnStatus>;

/**
 * Why a turn (or a provider test) failed: a closed set of causes, each with
 * one sentence in the message and one action that helps (FAILURE_ACTIONS).
 */
export const TurnErrorKind = z.enum([
  /** Nothing answered at the provider's address (`address` says which). */
  'cannotConnect',
  /** The provider refused the API key (401/403). */
  'unauthorized',
  /** The provider needs a key and none is stored. */
  'missingKey',
  /** The provider has no model of that name. */
  'modelNotFound',
  /** Too many requests for now (429). */
  'rateLimited',
  /** The account is out of credit or over its quota. */
  'quotaExceeded',
  /** The provider failed (5xx, or an error inside the reply). */
  'serverError',
  'timeout',
  'streamInterrupted',
  'badResponse',
  /** The goal's token budget is spent. */
  'budgetExhausted',
  /** Another setting is missing or wrong (no provider, no model chosen, an invalid address). */
  'configuration',
  'other',
]);
export type TurnErrorKind = z.infer<typeof TurnErrorKind>;

/** The one thing a person can do about a failure, as the conversation and Settings offer it. */
export type FailureAction = 'retry' | 'editKey' | 'openSettings' | 'raiseBudget';

/** The action each cause gets: the one that can help, never one that cannot. */
export const FAILURE_ACTIONS: Readonly<Record<TurnErrorKind, FailureAction>> = {
  // A server that is down comes back; Settings would not help.
  cannotConnect: 'retry',
  unauthorized: 'editKey',
  missingKey: 'editKey',
  modelNotFound: 'openSettings',
  rateLimited: 'retry',
  // Credit is added at the provider; here, another key (or provider) is what helps.
  quotaExceeded: 'editKey',
  serverError: 'retry',
  timeout: 'retry',
  streamInterrupted: 'retry',
  badResponse: 'retry',
  budgetExhausted: 'raiseBudget',
  configuration: 'openSettings',
  other: 'retry',
};

/** A turn's failure as Wheelhouse records it. */
export const TurnFailure = z.object({
  message: z.string(),
  kind: TurnErrorKind,
  httpStatus: z.number().int().nullable(),
  additionalDetails: z.string().nullable(),
  /** The address that could not be reached (`cannotConnect`); absent on failures recorded before it was. */
  address: z.string().nullable().optional(),
});
export type TurnFailure = z.infer<typeof TurnFailure>;

/** Codex's `TurnError`: the failure plus Codex's classification (`kind`, `httpStatus` and `address` are Wheelhouse's). */
export const TurnError = TurnFailure.extend({
  codexErrorInfo: CodexErrorInfo.nullable(),
  misalignment: z.null(),
});
export type TurnError = z.infer<typeof TurnError>;

const CODEX_ERROR_INFO: Readonly<Record<TurnErrorKind, CodexErrorInfo | null>> = {
  cannotConnect: { httpConnectionFailed: { httpStatusCode: null } },
  unauthorized: 'unauthorized',
  missingKey: 'unauthorized',
  modelNotFound: 'modelNotFound',
  rateLimited: 'rateLimitExceeded',
  quotaExceeded: 'usageLimitExceeded',
  serverError: 'internalServerError',
  timeout: null,
  streamInterrupted: null,
  badResponse: 'other',
  budgetExhausted: 'usageLimitExceeded',
  configuration: 'badRequest',
  other: 'other',
};

/** A recorded failure in Codex's shape. */
export function toTurnError(failure: TurnFailure): TurnError {
  return { ...failure, codexErrorInfo: CODEX_ERROR_INFO[failure.kind], misalignment: null };
}

/** Codex `TurnItemsView`: `items` not loaded, a display summary, or every item of the turn. */
export const TurnItemsView = z.enum(['notLoaded', 'summary', 'full']);
export type TurnItemsView = z.infer<typeof TurnItemsView>;

export const Turn = z.object({
  id: z.string(),
  status: TurnStatus,
  error: TurnError.nullable(),
  model: z.string().nullable(),
  /** Unix seconds. */
  startedAt: z.number().int().nullable(),
  completedAt: z.number().int().nullable(),
  durationMs: z.number().int().nullable(),
  /** Codex: the first turn of the chain of work that led to this one; every Wheelhouse turn starts its own chain. */
  rootTurnId: z.string().nullable(),
  usage: TokenUsageBreakdown.nullable(),
  /** Filled only where a response says so (thread/read with includeTurns, resume, fork). */
  items: z.array(ThreadItem),
  /** Codex: how much of `items` this message carries. */
  itemsView: TurnItemsView,
});
export type Turn = z.infer<typeof Turn>;

/** Codex `ThreadEnvironment`: an environment a thread runs in. */
export const ThreadEnvironment = z.object({
  environmentId: z.string(),
  cwd: z.string(),
  runtimeWorkspaceRoots: z.array(z.string()),
});
export type ThreadEnvironment = z.infer<typeof ThreadEnvironment>;

/** The one environment of every Wheelhouse thread: this machine (Codex names it `local`). */
export const LOCAL_ENVIRONMENT_ID = 'local';

export const ThreadHistoryMode = z.enum(['legacy', 'paginated']);

const threadNulls = nullFields(
  'projectId',
  'agentNickname',
  'agentRole',
  'attachedToThreadId',
  'daybreakEnabled',
  'extra',
  'originator',
  'parentThreadId',
  'reasoningEffort',
  'section',
  'sectionEnteredAt',
  'threadSource',
);
/** The Codex Thread fields Wheelhouse has no value for, sent as null. */
export const THREAD_CODEX_NULLS = threadNulls.values;

/**
 * A conversation with an agent; timestamps are Unix seconds (Codex v2).
 * Wheelhouse adds `origin`, `lifecycle`, `approvalPolicy`, `sandbox`,
 * `memoryMode`, `archived` and `archivedAt`.
 */
export const Thread = z.object({
  id: z.string(),
  /** Codex: the session id; a Wheelhouse thread is its own session. */
  sessionId: z.string(),
  ...threadNulls.shape,
  /** Codex: whether a person can send this thread input directly (every Wheelhouse thread can until archived). */
  canAcceptDirectInput: z.boolean(),
  /** Codex: where the thread's commands run; Wheelhouse threads run on this machine, in `cwd`. */
  environments: z.array(ThreadEnvironment),
  /** Codex: `paginated` threads page their turns and items; Wheelhouse returns a thread's history whole (`legacy`). */
  historyMode: ThreadHistoryMode,
  /** Codex: Unix seconds of the thread's latest activity. */
  recencyAt: z.number().int(),
  forkedFromId: z.string().nullable(),
  preview: z.string(),
  ephemeral: z.boolean(),
  modelProvider: z.string(),
  model: z.string().nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  status: ThreadStatus,
  lifecycle: ThreadLifecycle,
  path: z.string().nullable(),
  cwd: z.string(),
  cliVersion: z.string(),
  /** Codex's session source: Wheelhouse threads are made through its app-server. */
  source: CodexSessionSource,
  /** How the thread came to be (Wheelhouse's own, finer than `source`). */
  origin: SessionSource,
  gitInfo: GitInfo.nullable(),
  name: z.string().nullable(),
  approvalPolicy: AskForApproval.nullable(),
  sandbox: SandboxMode.nullable(),
  memoryMode: z.string().nullable(),
  archived: z.boolean(),
  archivedAt: z.number().int().nullable(),
  turns: z.array(Turn),
});
export type Thread = z.infer<typeof Thread>;

/** The latest checkpoint of a thread (seed 000: "latest" with a reason). */
export const Checkpoint = z.object({
  checkpointId: z.string(),
  reason: z.string(),
  state: z.unknown(),
  createdAt: z.number().int(),
});
export type Checkpoint = z.infer<typeof Checkpoint>;

export const ThreadGoalStatus = z.enum([
  'active',
  'paused',
  'blocked',
  'usageLimited',
  'budgetLimited',
  'complete',
]);
export type ThreadGoalStatus = z.infer<typeof ThreadGoalStatus>;

export const ThreadGoal = z.object({
  threadId: z.string(),
  goalId: z.string(),
  objective: z.string(),
  status: ThreadGoalStatus,
  tokenBudget: z.number().int().nullable(),
  tokensUsed: z.number().int(),
  timeUsedSeconds: z.number().int(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type ThreadGoal = z.infer<typeof ThreadGoal>;

/** Longest thread name a person can set. */
export const MAX_THREAD_NAME_LENGTH = 200;
