import { z } from 'zod';
import { defineMethod, defineNotification } from '../define.js';

/**
 * Hooks: commands from config.toml that run at points of a session (Codex's
 * `hooks/list`, `hook/started`, `hook/completed`; shapes as Codex 0.169's).
 */

/** Codex's `HookEventName`; Wheelhouse runs sessionStart, preToolUse, postToolUse, userPromptSubmit (turn start), stop (turn end) and permissionRequest. */
export const HookEventName = z.enum([
  'preModelRequest',
  'postModelRequest',
  'preToolUse',
  'permissionRequest',
  'postToolUse',
  'preCompact',
  'postCompact',
  'sessionStart',
  'sessionEnd',
  'userPromptSubmit',
  'subagentStart',
  'subagentStop',
  'stop',
  'interrupt',
]);
export type HookEventName = z.infer<typeof HookEventName>;

export const HookRunStatus = z.enum(['running', 'completed', 'failed', 'blocked', 'stopped']);
export type HookRunStatus = z.infer<typeof HookRunStatus>;

export const HookOutputEntry = z.object({
  kind: z.enum(['warning', 'stop', 'feedback', 'context', 'error']),
  text: z.string(),
});
export type HookOutputEntry = z.infer<typeof HookOutputEntry>;

const HookSource = z.enum([
  'system',
  'user',
  'project',
  'mdm',
  'sessionFlags',
  'plugin',
  'cloudRequirements',
  'cloudManagedConfig',
  'legacyManagedConfigFile',
  'legacyManagedConfigMdm',
  'unknown',
]);

/** One run of one hook (Codex's `HookRunSummary`). Times are Unix seconds, durations milliseconds. */
export const HookRunSummary = z.object({
  id: z.string(),
  eventName: HookEventName,
  handlerType: z.enum(['command', 'mcpTool', 'prompt', 'agent']),
  executionMode: z.enum(['sync', 'async']),
  scope: z.enum(['thread', 'turn']),
  source: HookSource,
  /** config.toml the hook came from. */
  sourcePath: z.string(),
  displayOrder: z.number().int(),
  status: HookRunStatus,
  statusMessage: z.string().nullable(),
  startedAt: z.number().int(),
  completedAt: z.number().int().nullable(),
  durationMs: z.number().int().nullable(),
  entries: z.array(HookOutputEntry),
});
export type HookRunSummary = z.infer<typeof HookRunSummary>;

export const HookRunNotification = z.object({
  threadId: z.string(),
  turnId: z.string().nullable(),
  run: HookRunSummary,
});
export type HookRunNotification = z.infer<typeof HookRunNotification>;

/** A configured command hook (Codex's `HookMetadata`, command handler). */
export const HookMetadata = z.object({
  key: z.string(),
  eventName: HookEventName,
  handlerType: z.literal('command'),
  command: z.string(),
  async: z.boolean(),
  matcher: z.string().nullable(),
  timeoutSec: z.number().int().min(0),
  statusMessage: z.string().nullable(),
  source: HookSource,
  sourcePath: z.string(),
  displayOrder: z.number().int(),
  enabled: z.boolean(),
  isManaged: z.boolean(),
  currentHash: z.string(),
  trustStatus: z.enum(['managed', 'untrusted', 'trusted', 'modified']),
  pluginId: z.string().nullable(),
  environmentId: z.string().nullable(),
  additionalContextLimit: z.number().int().min(0).nullable(),
});
export type HookMetadata = z.infer<typeof HookMetadata>;

export const HooksListEntry = z.object({
  cwd: z.string(),
  hooks: z.array(HookMetadata),
  /** config.toml values under `hooks` that were rejected (the rest still run). */
  errors: z.array(z.object({ message: z.string(), path: z.string() })),
  warnings: z.array(z.string()),
});
export type HooksListEntry = z.infer<typeof HooksListEntry>;

export const HooksListParams = z.object({
  cwds: z.array(z.string().min(1).max(4096)).max(64).optional(),
  threadId: z.string().min(1).nullable().optional(),
});

export const HooksListResult = z.object({ data: z.array(HooksListEntry) });

export const hookMethods = {
  'hooks/list': defineMethod(HooksListParams, HooksListResult, 'The configured hooks, per working folder (or for a thread).'),
} as const;

export const hookNotifications = {
  'hook/started': defineNotification(HookRunNotification, 'A hook command started.'),
  'hook/completed': defineNotification(HookRunNotification, 'A hook command ended: completed, blocked or failed (with why).'),
} as const;
