import { z } from 'zod';
import { PolicyDecidedBy, PolicyPatternToken } from '../command-execution.js';
import { defineMethod, defineNotification } from '../define.js';
import { AskForApproval, SandboxMode } from '../thread.js';

/**
 * The exec policy's rules (Wheelhouse only; Codex has no methods for them):
 * the built-in defaults, the person's `prefix_rule`s from `<home>/rules/*.rules`,
 * edits to them, and a dry run of a command. Every check happens in the runtime.
 */

export const ExecPolicyRuleDecision = z.enum(['allow', 'prompt', 'forbidden']);

/** A rule from a rules file, where it is, so it can be edited or deleted. */
export const ExecPolicyRule = z.object({
  /** `<file>:<line>`, as decisions name it. */
  source: z.string(),
  file: z.string(),
  line: z.number().int(),
  pattern: z.array(PolicyPatternToken),
  decision: ExecPolicyRuleDecision,
  justification: z.string().nullable(),
  /** Wheelhouse: the project folder this rule applies to (its commands only); null for every thread. */
  project: z.string().nullable(),
});
export type ExecPolicyRule = z.infer<typeof ExecPolicyRule>;

/** A built-in default: code, not a rule file; shown read-only. */
export const ExecPolicyBuiltinRule = z.object({
  source: z.string(),
  decision: ExecPolicyRuleDecision,
  description: z.string(),
  /** What it is about in a few plain words, as the conversation says it ("deletes files"). */
  summary: z.string(),
});
export type ExecPolicyBuiltinRule = z.infer<typeof ExecPolicyBuiltinRule>;

/** A problem in a rules file. While a file has one, the rules it had before keep applying. */
export const ExecPolicyRuleProblem = z.object({
  file: z.string(),
  line: z.number().int(),
  column: z.number().int().nullable(),
  message: z.string(),
  /** True when the file's previous good rules are still in force instead of what it now says. */
  keptPreviousRules: z.boolean(),
});
export type ExecPolicyRuleProblem = z.infer<typeof ExecPolicyRuleProblem>;

export const ExecPolicyRulesListResult = z.object({
  rulesFolder: z.string(),
  /** Where new rules are added. */
  defaultFile: z.string(),
  builtins: z.array(ExecPolicyBuiltinRule),
  rules: z.array(ExecPolicyRule),
  problems: z.array(ExecPolicyRuleProblem),
  /** Why the rules folder is not watched right now (edits made outside Wheelhouse wait for a retry), or null. */
  watchError: z.string().nullable(),
});
export type ExecPolicyRulesListResult = z.infer<typeof ExecPolicyRulesListResult>;

const Word = z
  .string()
  .min(1, 'a pattern word cannot be empty')
  .max(500)
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'a pattern word cannot contain control characters or line breaks');

/** A rule as the editor sends it; checked again by parsing its text before anything is written. */
export const ExecPolicyRuleInput = z.object({
  pattern: z.array(z.union([Word, z.array(Word).min(1, 'alternatives need at least one word').max(50)])).min(1, 'a rule needs at least one pattern word').max(50),
  decision: ExecPolicyRuleDecision,
  justification: z
    .string()
    .max(1000)
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'the justification must be one line')
    .nullable()
    .optional(),
});
export type ExecPolicyRuleInput = z.infer<typeof ExecPolicyRuleInput>;

/** Which rule an edit or delete is about: its file and the line its `prefix_rule(` starts on. */
const RuleAt = z.object({ file: z.string().min(1).max(4096), line: z.number().int().min(1) });

export const ExecPolicyRuleChange = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('add'),
    rule: ExecPolicyRuleInput,
    /** Wheelhouse: add it for this project folder only (kept in the home, `rules/projects/`); default: for every thread. */
    project: z.string().min(1).max(1024).nullable().optional(),
  }),
  z.object({ type: z.literal('update'), at: RuleAt, rule: ExecPolicyRuleInput }),
  z.object({ type: z.literal('delete'), at: RuleAt }),
]);
export type ExecPolicyRuleChange = z.infer<typeof ExecPolicyRuleChange>;

export const ExecPolicyCheckResult = z.object({
  /** What would happen: run (`allow`), ask the person (`prompt`), or refuse (`forbidden`). */
  decision: ExecPolicyRuleDecision,
  reason: z.string(),
  decidedBy: PolicyDecidedBy,
  approvalPolicy: AskForApproval,
  sandbox: SandboxMode,
  /** How each command of the script was judged. */
  commands: z.array(
    z.object({
      command: z.array(z.string()),
      decision: z.enum(['allow', 'prompt', 'forbidden', 'unmatched']),
      reason: z.string(),
      source: z.string().nullable(),
    }),
  ),
});
export type ExecPolicyCheckResult = z.infer<typeof ExecPolicyCheckResult>;

export const execPolicyMethods = {
  'execPolicy/rules/list': defineMethod(
    z.object({}),
    ExecPolicyRulesListResult,
    'The exec-policy rules: built-in defaults, the rules files’ rules, and problems found in those files.',
  ),
  'execPolicy/rules/write': defineMethod(
    z.object({ change: ExecPolicyRuleChange }),
    ExecPolicyRulesListResult,
    'Adds, changes or deletes one rule (validated, then written atomically, readable by its owner only); answers the new list.',
  ),
  'execPolicy/check': defineMethod(
    z.object({
      command: z.string().min(1, 'type a command to check').max(100_000),
      /** Judge with this thread's approval policy and sandbox (and its project's rules); else the defaults new threads get. */
      threadId: z.string().nullable().optional(),
    }),
    ExecPolicyCheckResult,
    'What the exec policy would decide for a command, and which rule decided (nothing is run).',
  ),
} as const;

export const execPolicyNotifications = {
  'execPolicy/rules/changed': defineNotification(
    z.object({ problems: z.array(ExecPolicyRuleProblem) }),
    'The rules were reloaded (a rules file changed on disk, or the editor wrote one).',
  ),
} as const;
