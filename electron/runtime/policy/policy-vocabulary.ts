/**
 * The exec policy's vocabulary: Codex's AskForApproval and sandbox modes, rule
 * decisions, and the decision object of seed 000 (`ExecApprovalRequirement`).
 */

/** Codex's `v2/AskForApproval`, plus the legacy `on-failure` that Codex still accepts in config. */
export type AskForApproval =
  | 'untrusted'
  | 'on-failure'
  | 'on-request'
  | 'never'
  | { readonly granular: GranularApproval };

/** Which kinds of prompt may be shown; a kind set to false is refused instead of asked. */
export interface GranularApproval {
  /** Prompts from the exec policy: `prompt` rules, dangerous commands, scripts that do not parse. */
  readonly rules: boolean;
  /** Prompts to run outside the sandbox (escalation requested, or a retry after a sandbox denial). */
  readonly sandbox_approval: boolean;
  readonly mcp_elicitations: boolean;
  readonly request_permissions?: boolean;
  readonly skill_approval?: boolean;
}

export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';

export type RuleDecision = 'allow' | 'prompt' | 'forbidden';

/** One position of a prefix pattern: a literal, or alternatives (`["push", "fetch"]`). */
export type PatternToken = string | readonly string[];

export interface PrefixRule {
  readonly pattern: readonly PatternToken[];
  readonly decision: RuleDecision;
  readonly justification: string | null;
  /** Where the rule came from: `builtin`, or `file:line` of a rules file. */
  readonly source: string;
  /** For a rule read from a file: where its text is (the rules editor replaces or removes exactly that). */
  readonly location?: RuleLocation;
}

export interface RuleLocation {
  readonly file: string;
  readonly line: number;
  /** Offsets of the `prefix_rule(...)` call in the file's text. */
  readonly start: number;
  readonly end: number;
}

/** The rule that decided, as reported with every decision. */
export interface MatchedRule {
  readonly source: string;
  readonly pattern: readonly PatternToken[];
  readonly decision: RuleDecision;
  readonly justification: string | null;
  /** The command (argv as written) the rule matched. */
  readonly command: readonly string[];
}

/** Codex's `NetworkPolicyAmendment`. */
export interface NetworkPolicyAmendment {
  readonly host: string;
  readonly action: 'allow' | 'deny';
}

/** Seed 000's `ExecApprovalRequirement`. */
export type ExecApprovalRequirement =
  | {
      readonly type: 'skip';
      /** True when a user `allow` rule matched: Codex runs such commands outside the sandbox. */
      readonly bypassSandbox: boolean;
      readonly reason: string;
    }
  | {
      readonly type: 'needs_approval';
      readonly reason: string;
      /** An argv prefix that, allowed, would let this command run without asking next time. */
      readonly proposedExecpolicyAmendment: readonly string[] | null;
      readonly proposedNetworkPolicyAmendments: readonly NetworkPolicyAmendment[];
    }
  | { readonly type: 'forbidden'; readonly reason: string };

/** How one command of the script was judged. */
export interface CommandVerdict {
  readonly command: readonly string[];
  /** `unmatched`: no rule and not known to be read-only; the approval mode decides. */
  readonly decision: RuleDecision | 'unmatched';
  readonly reason: string;
  readonly matchedRule: MatchedRule | null;
  /** For an unmatched command made only of literal words: the argv to propose allowing next time. */
  readonly proposedPrefix?: readonly string[] | null;
}

export interface ExecPolicyDecision {
  readonly requirement: ExecApprovalRequirement;
  /** The rule behind the most restrictive verdict, or null when no rule decided. */
  readonly matchedRule: MatchedRule | null;
  readonly commands: readonly CommandVerdict[];
}

export interface ExecPolicyRequest {
  /** A shell script (as the model's shell tool sends) or an argv to exec directly. */
  readonly command: string | readonly string[];
  readonly approvalPolicy: AskForApproval;
  readonly sandboxMode: SandboxMode;
  /** `workspace-write` with network allowed; read-only and workspace-write default to no network. */
  readonly networkAccess?: boolean;
  /** The model asked to run outside the sandbox (Codex's `sandbox_permissions: require_escalated`). */
  readonly requireEscalated?: boolean;
  /** With `requireEscalated`: the model asked for added folders or network in the sandbox (`with_additional_permissions`), not for no sandbox. */
  readonly asksForAdditions?: boolean;
  /** The project folder the command runs for: its own rules apply beside the home's. */
  readonly project?: string | null;
}

export interface RuleFileError {
  readonly file: string;
  readonly line: number;
  /** 1-based; absent when the problem is the whole file (unreadable). */
  readonly column?: number;
  readonly message: string;
}
