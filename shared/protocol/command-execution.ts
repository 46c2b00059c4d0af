import { z } from 'zod';

/** Codex `CommandExecutionStatus`. */
export const CommandExecutionStatus = z.enum(['inProgress', 'completed', 'failed', 'declined']);
export type CommandExecutionStatus = z.infer<typeof CommandExecutionStatus>;

/** Codex `CommandAction`: a best-effort reading of what one command of a script does, for display. */
export const CommandAction = z.discriminatedUnion('type', [
  z.object({ type: z.literal('read'), command: z.string(), name: z.string(), path: z.string() }),
  z.object({ type: z.literal('listFiles'), command: z.string(), path: z.string().nullable() }),
  z.object({ type: z.literal('search'), command: z.string(), path: z.string().nullable(), query: z.string().nullable() }),
  z.object({ type: z.literal('unknown'), command: z.string() }),
]);
export type CommandAction = z.infer<typeof CommandAction>;

/** Codex `NetworkPolicyAmendment`. */
export const NetworkPolicyAmendment = z.object({ host: z.string(), action: z.enum(['allow', 'deny']) });

/** Codex `CommandExecutionApprovalDecision` (every variant). */
export const CommandExecutionApprovalDecision = z.union([
  z.literal('accept'),
  z.literal('acceptForSession'),
  z.object({ acceptWithExecpolicyAmendment: z.object({ execpolicy_amendment: z.array(z.string()) }) }).strict(),
  z.object({ applyNetworkPolicyAmendment: z.object({ network_policy_amendment: NetworkPolicyAmendment }) }).strict(),
  z.literal('decline'),
  z.literal('cancel'),
]);
export type CommandExecutionApprovalDecision = z.infer<typeof CommandExecutionApprovalDecision>;

/**
 * The `commandExecution` item fields (Codex `CommandExecutionThreadItem`),
 * plus what Wheelhouse needs to rebuild the model's history: the call id,
 * the tool's arguments and the answer the model got.
 */
export const commandExecutionFields = {
  type: z.literal('commandExecution'),
  /** Codex: Unix ms when the item started and completed (null until it has). */
  startedAtMs: z.number().int().nullable(),
  completedAtMs: z.number().int().nullable(),
  command: z.string(),
  cwd: z.string(),
  /** The supervisor's process id (Codex: "identifier for the underlying PTY process"). */
  processId: z.string().nullable(),
  source: z.enum(['agent', 'userShell', 'unifiedExecStartup', 'unifiedExecInteraction']),
  status: CommandExecutionStatus,
  commandActions: z.array(CommandAction),
  aggregatedOutput: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().int().nullable(),
  pluginId: z.null(),
  scriptPath: z.null(),
  /** Wheelhouse: the model's tool call this command answers. */
  callId: z.string(),
  arguments: z.unknown(),
  /** Wheelhouse: what the model was told (bounded head + tail); null until the call returned. */
  modelOutput: z.string().nullable(),
  /** Wheelhouse: the full output on disk (capped), while the runtime keeps it. */
  logPath: z.string().nullable(),
};
