import type { JobAgent, JobCreateAgentParams, JobCreateParams, SandboxMode } from '../../../shared/protocol/index.js';

/** What the "Agent with a goal" part of the New job dialog holds, as typed. */
export interface AgentJobForm {
  readonly objective: string;
  readonly tokenBudget: string;
  readonly timeBudgetMinutes: string;
  readonly approvalPolicy: JobAgent['approvalPolicy'];
  readonly allowCommands: string;
  /** '' : the app's default sandbox. */
  readonly sandbox: SandboxMode | '';
  /** '' : the default (50). */
  readonly maxTurns: string;
}

export const EMPTY_AGENT_FORM: AgentJobForm = { objective: '', tokenBudget: '', timeBudgetMinutes: '', approvalPolicy: 'on-request', allowCommands: '', sandbox: '', maxTurns: '' };

/** The form of a saved agent job (editing a schedule's job). */
export function agentFormOf(params: JobCreateAgentParams): AgentJobForm {
  return {
    objective: params.objective,
    tokenBudget: params.tokenBudget === undefined ? '' : String(params.tokenBudget),
    timeBudgetMinutes: params.timeBudgetMs === undefined ? '' : String(Math.round(params.timeBudgetMs / 60_000)),
    approvalPolicy: params.approvalPolicy ?? 'on-request',
    allowCommands: (params.allowCommands ?? []).join(', '),
    sandbox: params.sandbox ?? '',
    maxTurns: params.maxTurns === undefined ? '' : String(params.maxTurns),
  };
}

/** Whole numbers only, within bounds; null when the text is not one. */
export function wholeNumber(text: string, min: number, max: number): number | null {
  if (!/^\d+$/.test(text.trim())) return null;
  const value = Number(text.trim());
  return value >= min && value <= max ? value : null;
}

const optional = (text: string, min: number, max: number): number | undefined | null => (text.trim() === '' ? undefined : wholeNumber(text, min, max));

export function agentFormErrors(form: AgentJobForm) {
  return {
    objective: form.objective.trim() === '' ? 'Say what the agent should achieve.' : null,
    tokenBudget: optional(form.tokenBudget, 1, 1_000_000_000) === null ? 'A whole number of tokens, or leave it empty for no limit.' : null,
    timeBudget: optional(form.timeBudgetMinutes, 1, 43_200) === null ? 'Whole minutes (1 or more), or leave it empty for no limit.' : null,
    maxTurns: optional(form.maxTurns, 1, 1000) === null ? 'A whole number from 1 to 1000, or leave it empty for 50.' : null,
  };
}

/** The job/create fields of a valid form. */
export function agentParams(form: AgentJobForm) {
  const tokenBudget = optional(form.tokenBudget, 1, 1_000_000_000);
  const minutes = optional(form.timeBudgetMinutes, 1, 43_200);
  const maxTurns = optional(form.maxTurns, 1, 1000);
  const allowCommands = form.allowCommands
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);
  return {
    objective: form.objective.trim(),
    approvalPolicy: form.approvalPolicy,
    ...(tokenBudget ? { tokenBudget } : {}),
    ...(minutes ? { timeBudgetMs: minutes * 60_000 } : {}),
    ...(allowCommands.length > 0 ? { allowCommands } : {}),
    ...(form.sandbox ? { sandbox: form.sandbox } : {}),
    ...(maxTurns ? { maxTurns } : {}),
  };
}

/**
 * What a job runs, as typed: a command (retries, a time limit, progress, re-run
 * if lost) or an agent's goal with its budgets and approvals. The New job
 * dialog starts one job of it; a schedule keeps it as the template of its runs.
 */
export interface JobTemplateForm {
  readonly kind: 'command' | 'agent';
  readonly cwd: string;
  /** Where a command runs (Settings → Machines): `local`, or a machine's id; an agent works here. */
  readonly environmentId: string;
  /** The folder on that machine (a full path there), when it is not this computer. */
  readonly remoteCwd: string;
  readonly command: string;
  readonly retries: string;
  readonly timeoutMinutes: string;
  readonly progressFromOutput: boolean;
  readonly rerunIfLost: boolean;
  readonly agent: AgentJobForm;
}

export function newJobTemplateForm(cwd: string): JobTemplateForm {
  return { kind: 'command', cwd, environmentId: 'local', remoteCwd: '', command: '', retries: '3', timeoutMinutes: '', progressFromOutput: true, rerunIfLost: false, agent: EMPTY_AGENT_FORM };
}

/** The form of a saved job template (editing a schedule). */
export function jobTemplateFormOf(params: JobCreateParams): JobTemplateForm {
  const retries = String(params.maxAttempts ?? 3);
  if (params.kind === 'agent') return { ...newJobTemplateForm(params.cwd), kind: 'agent', retries, agent: agentFormOf(params) };
  return {
    ...newJobTemplateForm(params.environmentId && params.environmentId !== 'local' ? '' : params.cwd),
    ...(params.environmentId && params.environmentId !== 'local' ? { environmentId: params.environmentId, remoteCwd: params.cwd } : {}),
    command: params.command,
    retries,
    timeoutMinutes: params.timeoutMs === undefined ? '' : String(Math.round(params.timeoutMs / 60_000)),
    progressFromOutput: params.progressFromOutput ?? false,
    rerunIfLost: params.rerunIfLost ?? false,
  };
}

/** A command that runs on another machine (an agent always works on this computer for now). */
export const runsElsewhere = (form: JobTemplateForm): boolean => form.kind === 'command' && form.environmentId !== 'local';

export function jobTemplateErrors(form: JobTemplateForm) {
  const timeout = form.timeoutMinutes.trim() === '' ? undefined : wholeNumber(form.timeoutMinutes, 1, 43_200);
  const agent = agentFormErrors(form.agent);
  return {
    cwd: runsElsewhere(form)
      ? form.remoteCwd.trim().startsWith('/')
        ? null
        : 'Type the full path of a folder on that machine, starting with /.'
      : form.cwd.trim() === ''
        ? `Choose the folder the ${form.kind === 'agent' ? 'agent works' : 'command runs'} in.`
        : null,
    command: form.kind === 'command' && form.command.trim() === '' ? 'Type the command to run.' : null,
    retries: wholeNumber(form.retries, 0, 100) === null ? 'A whole number from 0 to 100.' : null,
    timeout: form.kind === 'command' && timeout === null ? 'Whole minutes (1 or more), or leave it empty for no limit.' : null,
    ...(form.kind === 'agent' ? agent : {}),
  };
}

/**
 * The job/create params of a valid form. `kept`: the template being edited;
 * what the form does not show (a command's environment) stays as it was.
 */
export function jobTemplateParams(form: JobTemplateForm, name: string, kept: JobCreateParams | null = null): JobCreateParams {
  const shared = { cwd: runsElsewhere(form) ? form.remoteCwd.trim() : form.cwd.trim(), maxAttempts: wholeNumber(form.retries, 0, 100) ?? 3, ...(name.trim() ? { name: name.trim() } : {}) };
  if (form.kind === 'agent') return { kind: 'agent', ...shared, ...agentParams(form.agent) };
  const timeout = form.timeoutMinutes.trim() === '' ? null : wholeNumber(form.timeoutMinutes, 1, 43_200);
  return {
    kind: 'command',
    ...(kept?.kind === 'command' && kept.env ? { env: kept.env } : {}),
    ...shared,
    command: form.command.trim(),
    ...(runsElsewhere(form) ? { environmentId: form.environmentId } : {}),
    progressFromOutput: form.progressFromOutput,
    rerunIfLost: form.rerunIfLost,
    ...(timeout !== null ? { timeoutMs: timeout * 60_000 } : {}),
  };
}

