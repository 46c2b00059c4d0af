import { z } from 'zod';

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
  z.object({ type: z.literal('active'), activeFlags: z.array(z.string()) }),
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

/** One piece of user input (Codex UserInput, text only for now). */
export const UserInput = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
]);
export type UserInput = z.infer<typeof UserInput>;

export const ToolCallStatus = z.enum(['inProgress', 'completed', 'failed']);

/** Items of a conversation; each belongs to a turn, or to the thread itself (turnId null). */
const itemBase = {
  id: z.string(),
  turnId: z.string().nullable(),
  createdAtMs: z.number().int(),
};
export const ThreadItem = z.discriminatedUnion('type', [
  z.object({ ...itemBase, type: z.literal('userMessage'), content: z.array(UserInput) }),
  z.object({
    ...itemBase,
    type: z.literal('agentMessage'),
    text: z.string(),
    /** True when the reply was cut off (stopped, failed, or Wheelhouse stopped mid-stream): `text` is what had arrived. */
    incomplete: z.boolean().optional(),
  }),
  z.object({
    ...itemBase,
    type: z.literal('reasoning'),
    summary: z.array(z.string()),
    content: z.array(z.string()),
  }),
  z.object({
    ...itemBase,
    type: z.literal('toolCall'),
    tool: z.string(),
    callId: z.string(),
    arguments: z.unknown(),
    status: ToolCallStatus,
    output: z.string().nullable(),
    success: z.boolean().nullable(),
    durationMs: z.number().nullable(),
  }),
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
  z.object({
    ...itemBase,
    type: z.literal('forkMarker'),
    fromThreadId: z.string(),
    fromThreadName: z.string().nullable(),
  }),
]);
export type ThreadItem = z.infer<typeof ThreadItem>;
export type ThreadItemType = ThreadItem['type'];

export const TokenUsageBreakdown = z.object({
  totalTokens: z.number().int(),
  inputTokens: z.number().int(),
  cachedInputTokens: z.number().int(),
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

/** Why a turn failed, in words a person can act on. */
export const TurnErrorKind = z.enum([
  'unauthorized',
  'rateLimited',
  'serverError',
  'timeout',
  'streamInterrupted',
  'badResponse',
  'budgetExhausted',
  'configuration',
  'other',
]);
export const TurnError = z.object({
  message: z.string(),
  kind: TurnErrorKind,
  httpStatus: z.number().int().nullable(),
  additionalDetails: z.string().nullable(),
});
export type TurnError = z.infer<typeof TurnError>;

export const Turn = z.object({
  id: z.string(),
  status: TurnStatus,
  error: TurnError.nullable(),
  model: z.string().nullable(),
  startedAt: z.number().nullable(),
  completedAt: z.number().nullable(),
  durationMs: z.number().nullable(),
  usage: TokenUsageBreakdown.nullable(),
  /** Filled only where a response says so (thread/read with includeTurns). */
  items: z.array(ThreadItem),
});
export type Turn = z.infer<typeof Turn>;

/** A conversation with an agent; timestamps are Unix seconds (Codex v2). */
export const Thread = z.object({
  id: z.string(),
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
  source: SessionSource,
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
