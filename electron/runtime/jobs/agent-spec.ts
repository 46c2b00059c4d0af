import type { JobAgent, JobCreateAgentParams, ThreadGoal } from '../../../shared/protocol/index.js';

/** Turns an agent job takes before it gives up without reaching its goal. */
export const DEFAULT_AGENT_MAX_TURNS = 50;

/**
 * What an agent job works toward and what it has used so far, as stored in
 * the job's `spec` column (rewritten with every commit, so the dashboard's
 * figures survive a restart).
 */
export interface AgentSpec {
  readonly kind: 'agent';
  readonly cwd: string;
  readonly objective: string;
  /** Follows the goal's: raising it in the conversation (thread/goal/set) lets a retry go on. */
  tokenBudget: number | null;
  readonly timeBudgetMs: number | null;
  readonly approvalPolicy: JobAgent['approvalPolicy'];
  readonly sandbox: JobAgent['sandbox'];
  readonly allowCommands: readonly string[];
  readonly maxTurns: number;
  goalStatus: JobAgent['goalStatus'];
  tokensUsed: number;
  timeUsedMs: number;
  turns: number;
  waitingApproval: JobAgent['waitingApproval'];
}

export function agentSpecOf(params: JobCreateAgentParams): AgentSpec {
  return {
    kind: 'agent',
    cwd: params.cwd,
    objective: params.objective,
    tokenBudget: params.tokenBudget ?? null,
    timeBudgetMs: params.timeBudgetMs ?? null,
    // Unattended work asks only when a command wants more than its sandbox gives.
    approvalPolicy: params.approvalPolicy ?? 'on-request',
    sandbox: params.sandbox ?? null,
    allowCommands: params.allowCommands ?? [],
    maxTurns: params.maxTurns ?? DEFAULT_AGENT_MAX_TURNS,
    goalStatus: null,
    tokensUsed: 0,
    timeUsedMs: 0,
    turns: 0,
    waitingApproval: null,
  };
}

/**
 * Takes the goal's status, tokens and token budget into the spec; returns true when something changed. Time is the
 * job's own (its turns' running time): the goal stops counting time once it is complete.
 */
export function applyGoal(spec: AgentSpec, goal: ThreadGoal): boolean {
  if (spec.goalStatus === goal.status && spec.tokensUsed === goal.tokensUsed && spec.tokenBudget === goal.tokenBudget) return false;
  spec.goalStatus = goal.status;
  spec.tokensUsed = goal.tokensUsed;
  spec.tokenBudget = goal.tokenBudget;
  return true;
}

/** Reads a stored spec; null when it is not an agent spec (an unreadable row stays a row without agent figures). */
export function parseAgentSpec(json: string): AgentSpec | null {
  try {
    const value = JSON.parse(json) as Partial<AgentSpec> | null;
    if (!value || value.kind !== 'agent' || typeof value.objective !== 'string' || typeof value.cwd !== 'string') return null;
    return {
      kind: 'agent',
      cwd: value.cwd,
      objective: value.objective,
      tokenBudget: value.tokenBudget ?? null,
      timeBudgetMs: value.timeBudgetMs ?? null,
      approvalPolicy: value.approvalPolicy ?? 'on-request',
      sandbox: value.sandbox ?? null,
      allowCommands: value.allowCommands ?? [],
      maxTurns: value.maxTurns ?? DEFAULT_AGENT_MAX_TURNS,
      goalStatus: value.goalStatus ?? null,
      tokensUsed: value.tokensUsed ?? 0,
      timeUsedMs: value.timeUsedMs ?? 0,
      turns: value.turns ?? 0,
      waitingApproval: value.waitingApproval ?? null,
    };
  } catch {
    return null;
  }
}

export function jobAgentOf(spec: AgentSpec): JobAgent {
  return {
    objective: spec.objective,
    goalStatus: spec.goalStatus,
    tokenBudget: spec.tokenBudget,
    tokensUsed: spec.tokensUsed,
    timeBudgetMs: spec.timeBudgetMs,
    timeUsedMs: spec.timeUsedMs,
    approvalPolicy: spec.approvalPolicy,
    sandbox: spec.sandbox,
    allowCommands: [...spec.allowCommands],
    turns: spec.turns,
    waitingApproval: spec.waitingApproval,
  };
}
