import type { ReactNode } from 'react';
import type { JobAgent } from '../../../../shared/protocol/index.js';

/** What the "Agent with a goal" part of the New job dialog holds, as typed. */
export interface AgentJobForm {
  readonly objective: string;
  readonly tokenBudget: string;
  readonly timeBudgetMinutes: string;
  readonly approvalPolicy: JobAgent['approvalPolicy'];
  readonly allowCommands: string;
  /** Work in a separate copy (git worktree) of the repository, on a branch of its own. */
  readonly worktree: boolean;
}

export const EMPTY_AGENT_FORM: AgentJobForm = { objective: '', tokenBudget: '', timeBudgetMinutes: '', approvalPolicy: 'on-request', allowCommands: '', worktree: false };

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
  };
}

/** The job/create fields of a valid form. */
export function agentParams(form: AgentJobForm) {
  const tokenBudget = optional(form.tokenBudget, 1, 1_000_000_000);
  const minutes = optional(form.timeBudgetMinutes, 1, 43_200);
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
    ...(form.worktree ? { worktree: true } : {}),
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
          <span className="field-label">
            Commands it may always run <span className="field-optional">optional</span>
          </span>
          <input className="field-input field-mono" data-testid="job-allow-commands" placeholder="npm test, git status" spellCheck={false} value={form.allowCommands} onChange={(e) => onChange({ allowCommands: e.target.value })} />
        </label>
        {retries}
      </div>
      <label className="new-job-check">
        <input type="checkbox" data-testid="job-worktree" checked={form.worktree} onChange={(e) => onChange({ worktree: e.target.checked })} />
        Work in a separate copy: the agent gets its own checkout on a new branch (git repositories only), so your files and other agents are left alone; merge it back from its thread when done
      </label>
    </>
  );
}
