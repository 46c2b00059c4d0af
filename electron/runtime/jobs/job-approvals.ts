import { RpcError, type CommandExecutionApprovalDecision, type CommandExecutionRequestApprovalParams } from '../../../shared/protocol/index.js';
import type { SandboxPolicy } from '../../exec/index.js';
import type { ApprovalBroker, ApprovalOutcome } from '../approvals/approval-broker.js';
import { commandActions } from '../agent-commands/command-actions.js';
import { needingApproval, sandboxPolicy } from '../agent-commands/agent-command-runner.js';
import type { ExecPolicyEngine } from '../policy/home-rules.js';
import type { AskForApproval, CommandVerdict, SandboxMode } from '../policy/policy-vocabulary.js';
import type { CommandSpec, JobApprovalNeed, JobEntry } from './job-entry.js';

/**
 * Who asked for a job. The person (the New job dialog, any client's `job/create`)
 * acts for themselves; the agent (`job_start`) acts under its thread's approval
 * policy and sandbox, exactly as its `exec_command` calls do.
 */
export type JobRequester = { readonly kind: 'person' } | { readonly kind: 'agent'; readonly threadId: string; readonly turnId: string };

export const PERSON: JobRequester = { kind: 'person' };

/** What a command job may do before it starts: its sandbox, and whether it waits for approval first. */
export interface JobAdmission {
  readonly sandbox: SandboxPolicy | null;
  readonly approval: JobApprovalNeed | null;
}

export interface JobApprovalsDeps {
  readonly policy: () => Promise<ExecPolicyEngine>;
  readonly approvals: ApprovalBroker;
  readonly settingsOf: (threadId: string) => Promise<{ approvalPolicy: AskForApproval; sandbox: SandboxMode; project?: string | null }>;
  readonly now: () => number;
}

/** The detail a job shows while it waits for the person. */
export const WAITING_FOR_APPROVAL = 'waiting for approval';

/**
 * Command jobs under the same exec policy and approvals as the agent's commands.
 *
 * The person's own jobs are trusted the way Codex trusts a command the user
 * types: the approval mode's "ask before anything unknown" does not apply to
 * them. Rules still do: a `forbidden` rule (a rules file, or a built-in one
 * such as a download piped into a shell) refuses the job, and a `prompt` rule
 * makes it wait for an explicit yes, since someone wrote that rule to be asked.
 */
export class JobApprovals {
  constructor(private readonly deps: JobApprovalsDeps) {}

  /** Refuses a forbidden command (typed error naming the rule); otherwise says how it may run. */
  async admit(spec: CommandSpec, requester: JobRequester): Promise<JobAdmission> {
    const engine = await this.deps.policy();
    if (requester.kind === 'person') {
      const decision = await engine.evaluate({ command: spec.command, approvalPolicy: 'on-request', sandboxMode: 'danger-full-access' });
      const ruled = decision.commands.filter((verdict) => verdict.matchedRule !== null);
      const forbidden = ruled.find((verdict) => verdict.decision === 'forbidden');
      if (forbidden) throw forbiddenError(forbidden);
      const prompt = ruled.find((verdict) => verdict.decision === 'prompt');
      const commands = decision.commands.map((verdict) => [...verdict.command]);
      return {
        sandbox: null,
        approval: prompt ? { reason: ruleText(prompt), commands, sessionPrefixes: [], proposedAmendment: null, turnId: null } : null,
      };
    }
    const settings = await this.deps.settingsOf(requester.threadId);
    const decision = await engine.evaluate({ command: spec.command, approvalPolicy: settings.approvalPolicy, sandboxMode: settings.sandbox, project: settings.project ?? null });
    const requirement = decision.requirement;
    if (requirement.type === 'forbidden') {
      const verdict = decision.commands.find((v) => v.decision === 'forbidden');
      throw verdict ? forbiddenError(verdict) : RpcError.because('policy.forbidden', `not run: the exec policy forbids it: ${requirement.reason}`);
    }
    const bypass = requirement.type === 'skip' && requirement.bypassSandbox;
    const sandbox = bypass ? { mode: 'danger-full-access' as const } : sandboxPolicy(settings.sandbox, spec.cwd);
    if (requirement.type !== 'needs_approval') return { sandbox, approval: null };
    const prefixes = needingApproval(decision);
    if (this.deps.approvals.covers(requester.threadId, prefixes)) return { sandbox, approval: null };
    return {
      sandbox,
      approval: {
        reason: requirement.reason,
        commands: decision.commands.map((verdict) => [...verdict.command]),
        sessionPrefixes: prefixes,
        proposedAmendment: requirement.proposedExecpolicyAmendment ? [...requirement.proposedExecpolicyAmendment] : null,
        turnId: requester.turnId,
      },
    };
  }

  /**
   * Asks every client (the same server request as an agent command's) and waits
   * for the first answer, or for `signal` (the job was cancelled or deleted).
   * A job without a thread names itself as the thread and the turn.
   */
  async ask(entry: JobEntry, need: JobApprovalNeed, signal: AbortSignal): Promise<'approved' | 'declined' | 'ended'> {
    const jobId = entry.state.id;
    const available: CommandExecutionApprovalDecision[] = ['accept'];
    if (entry.threadId !== null) available.push('acceptForSession');
    if (need.proposedAmendment) available.push({ acceptWithExecpolicyAmendment: { execpolicy_amendment: [...need.proposedAmendment] } });
    available.push('decline');
    const params: CommandExecutionRequestApprovalParams = {
      threadId: entry.threadId ?? jobId,
      turnId: need.turnId ?? jobId,
      itemId: jobId,
      approvalId: null,
      startedAtMs: this.deps.now(),
      kind: 'command',
      command: entry.spec.command,
      cwd: entry.spec.cwd,
      commandActions: commandActions(entry.spec.command, need.commands),
      reason: `background job "${entry.state.name}": ${need.reason}`,
      proposedExecpolicyAmendment: need.proposedAmendment ? [...need.proposedAmendment] : null,
      proposedNetworkPolicyAmendments: null,
      availableDecisions: available,
      additionalPermissions: null,
      networkApprovalContext: null,
      environmentId: null,
    };
    // Not recorded in pending_approvals: the job is the record, and asks again after a restart.
    const outcome: ApprovalOutcome = await this.deps.approvals.request({ store: null, ephemeral: true }, params, signal, need.sessionPrefixes);
    if (outcome.kind === 'ended') return 'ended';
    const decision = outcome.decision;
    if (decision === 'decline' || decision === 'cancel') return 'declined';
    if (typeof decision === 'object' && 'acceptWithExecpolicyAmendment' in decision) {
      const engine = await this.deps.policy();
      await engine.acceptAmendment(decision.acceptWithExecpolicyAmendment.execpolicy_amendment);
    }
    return 'approved';
  }
}

function ruleText(verdict: CommandVerdict): string {
  const rule = verdict.matchedRule;
  return rule ? `${verdict.reason} (rule ${rule.source}${rule.justification ? `: ${rule.justification}` : ''})` : verdict.reason;
}

function forbiddenError(verdict: CommandVerdict): RpcError {
  const rule = verdict.matchedRule;
  return RpcError.because('policy.forbidden', `not run: the exec policy forbids \`${verdict.command.join(' ')}\`: ${ruleText(verdict)}`, {
    rule: rule ? { source: rule.source, pattern: rule.pattern, justification: rule.justification } : null,
  });
}
