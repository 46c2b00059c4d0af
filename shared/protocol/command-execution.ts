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

/** One position of an exec-policy prefix pattern: a word, or alternatives (`["push", "fetch"]`). */
export const PolicyPatternToken = z.union([z.string(), z.array(z.string())]);
export type PolicyPatternToken = z.infer<typeof PolicyPatternToken>;

/**
 * Wheelhouse: what decided whether a command ran, asked or was refused, as
 * the command card and the approval card show it: a rule from a rules file,
 * a built-in default, the thread's approval policy (no rule matched), or an
 * "accept for session" grant. `label` is one plain sentence for clients that
 * show only that; the rest is the detail behind it.
 */
export const PolicyDecidedBy = z.object({
  kind: z.enum(['rule', 'builtin', 'approvalPolicy', 'sessionGrant']),
  /** `builtin:rm-force`, `<rules file>:<line>`, or `approvalPolicy:<mode>` (no rule matched). */
  source: z.string().nullable(),
  file: z.string().nullable(),
  line: z.number().int().nullable(),
  pattern: z.array(PolicyPatternToken).nullable(),
  decision: z.enum(['allow', 'prompt', 'forbidden']).nullable(),
  justification: z.string().nullable(),
  label: z.string(),
  /** What a built-in default is about, in a few plain words ("deletes files"); absent for rules and on older items. */
  summary: z.string().nullable().optional(),
});
export type PolicyDecidedBy = z.infer<typeof PolicyDecidedBy>;

/** The person's answer to an approval, as it ended. */
export const PersonAnswer = z.enum([
  'approved',
  'approvedForThread',
  /** Approved, and an allow rule for it added. */
  'approvedAlways',
  /** Approved with network access for one host. */
  'approvedWithNetwork',
  'declined',
  'declinedAndStopped',
  /** Network access for one host refused. */
  'deniedNetwork',
]);
export type PersonAnswer = z.infer<typeof PersonAnswer>;

/**
 * Wheelhouse: who settled a command or patch that did not simply run: the
 * person's answer, a hook's refusal, the policy (blocked without asking), or
 * nobody (the turn ended before it was answered). What the model was told is
 * in `modelOutput`; this is what a person is shown instead.
 */
export const ToolCallOutcome = z.discriminatedUnion('by', [
  z.object({ by: z.literal('person'), answer: PersonAnswer, host: z.string().nullable() }),
  z.object({ by: z.literal('hook'), hook: z.string(), reason: z.string() }),
  /** `reason`: why, in plain words, where the decision is not a rule the item names (`decidedBy`). */
  z.object({ by: z.literal('policy'), reason: z.string().nullable() }),
  z.object({ by: z.literal('turnEnded') }),
]);
export type ToolCallOutcome = z.infer<typeof ToolCallOutcome>;

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
  /** Wheelhouse: the exec-policy rule (or default) that decided; absent on items from before it was recorded. */
  decidedBy: PolicyDecidedBy.nullable().optional(),
  /** Wheelhouse: who settled it when it asked or was refused; null when it simply ran; absent on older items. */
  outcome: ToolCallOutcome.nullable().optional(),
  /** Wheelhouse: the machine it ran on (an environment id, with `cwd` a folder there); absent: this computer. */
  environmentId: z.string().optional(),
};
