import type { ReactNode } from 'react';
import type { JobAgent, JobCreateAgentParams, SandboxMode } from '../../../../shared/protocol/index.js';

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

const SANDBOX_CHOICES: ReadonlyArray<{ value: SandboxMode | ''; label: string }> = [
  { value: '', label: 'Wheelhouse’s default' },
  { value: 'read-only', label: 'Read only' },
  { value: 'workspace-write', label: 'May change its folder' },
  { value: 'danger-full-access', label: 'No sandbox' },
];

/** The choices a person understands, in Codex's approval policy terms. */
export const APPROVAL_CHOICES: ReadonlyArray<{ value: JobAgent['approvalPolicy']; label: string }> = [
  { value: 'on-request', label: 'Ask me when a command needs more than its sandbox' },
  { value: 'untrusted', label: 'Ask me before anything that is not read-only' },
  { value: 'never', label: 'Never ask: refuse what would need my approval' },
];

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

/** Objective, budgets and what the agent may run without asking. */
export function AgentJobFields({
  form,
  errors,
  retries,
  onChange,
}: {
  /** The retries field, shared with command jobs. */
  readonly retries: ReactNode;
  readonly form: AgentJobForm;
  readonly errors: ReturnType<typeof agentFormErrors> | null;
  readonly onChange: (change: Partial<AgentJobForm>) => void;
}) {
  return (
    <>
      <label className="field">
        <span className="field-label">Goal</span>
        <textarea
          className="field-input new-job-command"
          data-testid="job-objective"
          placeholder="Make the test suite pass"
          rows={3}
          value={form.objective}
          aria-invalid={errors?.objective != null}
          onChange={(e) => onChange({ objective: e.target.value })}
        />
        <span className="field-hint">The agent works on it by itself, turn after turn, until it says the goal is achieved.</span>
        {errors?.objective && <span className="field-error">{errors.objective}</span>}
      </label>
      <div className="new-job-row">
        <label className="field">
          <span className="field-label">
            Token budget <span className="field-optional">optional</span>
          </span>
          <input className="field-input" data-testid="job-token-budget" inputMode="numeric" placeholder="no limit" value={form.tokenBudget} aria-invalid={errors?.tokenBudget != null} onChange={(e) => onChange({ tokenBudget: e.target.value })} />
          {errors?.tokenBudget && <span className="field-error">{errors.tokenBudget}</span>}
        </label>
        <label className="field">
          <span className="field-label">
            Time budget, minutes <span className="field-optional">optional</span>
          </span>
          <input className="field-input" data-testid="job-time-budget" inputMode="numeric" placeholder="no limit" value={form.timeBudgetMinutes} aria-invalid={errors?.timeBudget != null} onChange={(e) => onChange({ timeBudgetMinutes: e.target.value })} />
          {errors?.timeBudget && <span className="field-error">{errors.timeBudget}</span>}
        </label>
      </div>
      <label className="field">
        <span className="field-label">Approvals</span>
        <select className="field-input" data-testid="job-approval-policy" value={form.approvalPolicy as string} onChange={(e) => onChange({ approvalPolicy: e.target.value as JobAgent['approvalPolicy'] })}>
          {APPROVAL_CHOICES.map((choice) => (
            <option key={choice.value as string} value={choice.value as string}>
              {choice.label}
            </option>
          ))}
        </select>
        <span className="field-hint">When it waits for you, the job says so and you get a notification.</span>
      </label>
      <div className="new-job-row">
        <label className="field">
          <span className="field-label">Sandbox of its commands</span>
          <select className="field-input" data-testid="job-sandbox" value={form.sandbox} onChange={(e) => onChange({ sandbox: e.target.value as AgentJobForm['sandbox'] })}>
            {SANDBOX_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field-label">
            Most turns <span className="field-optional">optional</span>
          </span>
          <input className="field-input" data-testid="job-max-turns" inputMode="numeric" placeholder="50" value={form.maxTurns} aria-invalid={errors?.maxTurns != null} onChange={(e) => onChange({ maxTurns: e.target.value })} />
          {errors?.maxTurns && <span className="field-error">{errors.maxTurns}</span>}
        </label>
      </div>
      <div className="new-job-row">
        <label className="field">
          <span className="field-label">
            Commands it may always run <span className="field-optional">optional</span>
          </span>
          <input className="field-input field-mono" data-testid="job-allow-commands" placeholder="npm test, git status" spellCheck={false} value={form.allowCommands} onChange={(e) => onChange({ allowCommands: e.target.value })} />
        </label>
        {retries}
      </div>
    </>
  );
}
