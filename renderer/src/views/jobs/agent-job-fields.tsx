import type { ReactNode } from 'react';
import type { JobAgent, SandboxMode } from '../../../../shared/protocol/index.js';
import type { agentFormErrors, AgentJobForm } from '../../format/job-form.js';

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
