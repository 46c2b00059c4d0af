import type {
  AskForApproval,
  CommandVerdict,
  ExecApprovalRequirement,
  ExecPolicyDecision,
  ExecPolicyRequest,
  NetworkPolicyAmendment,
  SandboxMode,
} from './policy-vocabulary.js';

/**
 * Turns per-command verdicts into seed 000's requirement under an approval
 * mode and sandbox mode (the table is in docs/exec-policy.md):
 *  - any `forbidden` verdict → forbidden;
 *  - any `prompt` (a rule, a dangerous command, a script that does not parse) →
 *    needs approval; under `never` (never ask) it runs in the sandbox unasked, as Codex
 *    runs it; forbidden where granular `rules: false` refuses such prompts;
 *  - any `unmatched` command → the mode decides (untrusted asks; on-request runs it in the
 *    sandbox unless escalation is requested; on-failure and never run it in the sandbox);
 *  - all allowed → skip, outside the sandbox only when the person's own rules allowed every command.
 */
export function decideRequirement(verdicts: readonly CommandVerdict[], request: ExecPolicyRequest): ExecPolicyDecision {
  const decisive = mostRestrictive(verdicts);
  const matchedRule = decisive?.matchedRule ?? null;
  const decide = (requirement: ExecApprovalRequirement): ExecPolicyDecision => ({ requirement, matchedRule, commands: verdicts });
  const mode = request.approvalPolicy;

  if (decisive?.decision === 'forbidden') return decide({ type: 'forbidden', reason: decisive.reason });

  if (decisive?.decision === 'prompt') {
    // "never" means never ask, not "refuse what would have been asked": only a forbidding rule stops a command.
    if (mode === 'never' && !request.requireEscalated) {
      return decide({ type: 'skip', bypassSandbox: false, reason: `${decisive.reason}; the approval policy is "never", so it runs ${sandboxWords(request.sandboxMode)} without asking` });
    }
    const refusal = promptRefusal(mode, 'rules');
    if (refusal) return decide({ type: 'forbidden', reason: `${decisive.reason}; ${refusal}` });
    return decide(needsApproval(decisive.reason, verdicts, request, null));
  }

  if (decisive?.decision === 'unmatched') {
    const unmatched = verdicts.filter((verdict) => verdict.decision === 'unmatched');
    const amendment = proposeAmendment(unmatched);
    if (mode === 'untrusted') return decide(needsApproval(decisive.reason, verdicts, request, amendment));
    const escalation = escalationRequirement(request, decisive.reason, verdicts, amendment);
    if (escalation) return decide(escalation);
    return decide({ type: 'skip', bypassSandbox: false, reason: `${decisive.reason}; runs ${sandboxWords(request.sandboxMode)}` });
  }

  // Everything is allowed by a rule or known to be read-only.
  const escalation = escalationRequirement(request, request.asksForAdditions ? 'the command asks for more than the sandbox allows' : 'the command asks to run outside the sandbox', verdicts, null);
  const allowedByPeople = verdicts.length > 0 && verdicts.every((verdict) => verdict.matchedRule && !verdict.matchedRule.source.startsWith('builtin:'));
  if (escalation && !allowedByPeople && !verdicts.every(isBuiltinReadOnly)) return decide(escalation);
  const ruleSources = [...new Set(verdicts.filter((verdict) => !isBuiltinReadOnly(verdict)).map((verdict) => verdict.matchedRule?.source ?? ''))];
  const reason = allowedByPeople
    ? `allowed by ${verdicts.map((verdict) => verdict.matchedRule!.source).join(', ')}`
    : ruleSources.length === 0
      ? 'every command only reads'
      : `allowed by ${ruleSources.join(', ')}; the rest only reads`;
  return decide({ type: 'skip', bypassSandbox: allowedByPeople, reason });
}

function sandboxWords(mode: SandboxMode): string {
  return mode === 'danger-full-access' ? 'without a sandbox (danger-full-access)' : `in the ${mode} sandbox`;
}

function isBuiltinReadOnly(verdict: CommandVerdict): boolean {
  return verdict.matchedRule?.source === 'builtin:read-only';
}

/** Why a prompt of this kind may not be shown under the mode, or null when it may. */
function promptRefusal(mode: AskForApproval, kind: 'rules' | 'sandbox'): string | null {
  if (mode === 'never') return 'approval is needed but the approval policy is "never"';
  if (typeof mode === 'object') {
    const allowed = kind === 'rules' ? mode.granular.rules : mode.granular.sandbox_approval;
    if (!allowed) return `approval is needed but the granular approval policy refuses ${kind === 'rules' ? 'rule' : 'sandbox'} prompts`;
  }
  return null;
}

/** The model asked to run outside the sandbox (`requireEscalated`): who may grant it. */
function escalationRequirement(
  request: ExecPolicyRequest,
  reason: string,
  verdicts: readonly CommandVerdict[],
  amendment: readonly string[] | null,
): ExecApprovalRequirement | null {
  if (!request.requireEscalated || request.sandboxMode === 'danger-full-access') return null;
  const refusal = promptRefusal(request.approvalPolicy, 'sandbox');
  const asked = request.asksForAdditions ? 'more permissions than the sandbox gives' : 'running outside the sandbox';
  if (refusal) return { type: 'forbidden', reason: `${reason}; ${asked} needs approval and ${refusal.replace(/^approval is needed but /, '')}` };
  return needsApproval(`${reason}; it asks for ${asked}`, verdicts, request, amendment);
}

function needsApproval(
  reason: string,
  verdicts: readonly CommandVerdict[],
  request: ExecPolicyRequest,
  amendment: readonly string[] | null,
): ExecApprovalRequirement {
  return {
    type: 'needs_approval',
    reason,
    proposedExecpolicyAmendment: amendment,
    proposedNetworkPolicyAmendments: networkAmendments(verdicts, request.sandboxMode, request.networkAccess ?? false),
  };
}

/** The argv of the first command that needs approval, when allowing it as a prefix is meaningful. */
function proposeAmendment(unmatched: readonly CommandVerdict[]): readonly string[] | null {
  return unmatched[0]?.proposedPrefix ?? null;
}

/** Hosts in URLs the commands use, proposed for allowing when the sandbox has no network. */
function networkAmendments(verdicts: readonly CommandVerdict[], sandboxMode: SandboxMode, networkAccess: boolean): NetworkPolicyAmendment[] {
  if (sandboxMode === 'danger-full-access' || networkAccess) return [];
  const hosts = new Set<string>();
  for (const verdict of verdicts) {
    for (const arg of verdict.command) {
      const url = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/\s]+@)?([^/:\s?#]+)/i.exec(arg);
      const scp = /^[\w.-]+@([\w.-]+):/.exec(arg);
      const host = url?.[1] ?? scp?.[1];
      if (host) hosts.add(host.toLowerCase());
    }
  }
  return [...hosts].map((host) => ({ host, action: 'allow' as const }));
}

/** forbidden > prompt > unmatched > allow: the most restrictive verdict of a script decides. */
export const VERDICT_SEVERITY: Readonly<Record<CommandVerdict['decision'], number>> = { allow: 0, unmatched: 1, prompt: 2, forbidden: 3 };

function mostRestrictive(verdicts: readonly CommandVerdict[]): CommandVerdict | null {
  let best: CommandVerdict | null = null;
  for (const verdict of verdicts) if (!best || VERDICT_SEVERITY[verdict.decision] > VERDICT_SEVERITY[best.decision]) best = verdict;
  return best;
}

/**
 * After a command failed because the sandbox denied it (Codex's retry without
 * the sandbox): whether the person may be asked to run it unsandboxed.
 */
export function decideSandboxDenialRetry(mode: AskForApproval, command: string): ExecApprovalRequirement {
  const reason = `\`${command}\` was stopped by the sandbox`;
  const refusal = promptRefusal(mode, 'sandbox');
  if (refusal) return { type: 'forbidden', reason: `${reason}; ${refusal}` };
  return { type: 'needs_approval', reason: `${reason}; run it without the sandbox?`, proposedExecpolicyAmendment: null, proposedNetworkPolicyAmendments: [] };
}
