import type { ReactNode } from 'react';
import type { JobCreateParams } from '../../../../shared/protocol/index.js';
import { FolderField } from '../setup/folder-field.js';
import { AgentJobFields, agentFormErrors, agentFormOf, agentParams, EMPTY_AGENT_FORM, wholeNumber, type AgentJobForm } from './agent-job-fields.js';

/**
 * What a job runs, as typed: a command (retries, a time limit, progress, re-run
 * if lost) or an agent's goal with its budgets and approvals. The New job
 * dialog starts one job of it; a schedule keeps it as the template of its runs.
 */
export interface JobTemplateForm {
  readonly kind: 'command' | 'agent';
  readonly cwd: string;
  readonly command: string;
  readonly retries: string;
  readonly timeoutMinutes: string;
  readonly progressFromOutput: boolean;
  readonly rerunIfLost: boolean;
  readonly agent: AgentJobForm;
}

export function newJobTemplateForm(cwd: string): JobTemplateForm {
  return { kind: 'command', cwd, command: '', retries: '3', timeoutMinutes: '', progressFromOutput: true, rerunIfLost: false, agent: EMPTY_AGENT_FORM };
}

/** The form of a saved job template (editing a schedule). */
export function jobTemplateFormOf(params: JobCreateParams): JobTemplateForm {
  const retries = String(params.maxAttempts ?? 3);
  if (params.kind === 'agent') return { ...newJobTemplateForm(params.cwd), kind: 'agent', retries, agent: agentFormOf(params) };
  return {
    ...newJobTemplateForm(params.cwd),
    command: params.command,
    retries,
    timeoutMinutes: params.timeoutMs === undefined ? '' : String(Math.round(params.timeoutMs / 60_000)),
    progressFromOutput: params.progressFromOutput ?? false,
    rerunIfLost: params.rerunIfLost ?? false,
  };
}

export function jobTemplateErrors(form: JobTemplateForm) {
  const timeout = form.timeoutMinutes.trim() === '' ? undefined : wholeNumber(form.timeoutMinutes, 1, 43_200);
  const agent = agentFormErrors(form.agent);
  return {
    cwd: form.cwd.trim() === '' ? `Choose the folder the ${form.kind === 'agent' ? 'agent works' : 'command runs'} in.` : null,
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
  const shared = { cwd: form.cwd.trim(), maxAttempts: wholeNumber(form.retries, 0, 100) ?? 3, ...(name.trim() ? { name: name.trim() } : {}) };
  if (form.kind === 'agent') return { kind: 'agent', ...shared, ...agentParams(form.agent) };
  const timeout = form.timeoutMinutes.trim() === '' ? null : wholeNumber(form.timeoutMinutes, 1, 43_200);
  return {
    kind: 'command',
    ...(kept?.kind === 'command' && kept.env ? { env: kept.env } : {}),
    ...shared,
    command: form.command.trim(),
    progressFromOutput: form.progressFromOutput,
    rerunIfLost: form.rerunIfLost,
    ...(timeout !== null ? { timeoutMs: timeout * 60_000 } : {}),
  };
}

/** The kind switch, `name` (the dialog's own), the folder, then the command's or the agent's fields. */
export function JobTemplateFields({
  form,
  tried,
  name,
  onChange,
}: {
  readonly form: JobTemplateForm;
  /** Errors show once the person tried to submit. */
  readonly tried: boolean;
  readonly name: ReactNode;
  readonly onChange: (change: Partial<JobTemplateForm>) => void;
}) {
  const errors = jobTemplateErrors(form);
  const shown = (error: string | null | undefined) => (tried ? (error ?? null) : null);
  const retriesField = (label: string) => (
    <label className="field">
      <span className="field-label">{label}</span>
      <input className="field-input" data-testid="job-retries" inputMode="numeric" value={form.retries} aria-invalid={shown(errors.retries) !== null} onChange={(e) => onChange({ retries: e.target.value })} />
      {shown(errors.retries) && <span className="field-error">{errors.retries}</span>}
    </label>
  );
  return (
    <>
      <div className="segmented new-job-kind" role="radiogroup" aria-label="Kind of job">
        {(['command', 'agent'] as const).map((value) => (
          <button key={value} type="button" role="radio" aria-checked={form.kind === value} className="segment" data-testid={`job-kind-${value}`} onClick={() => onChange({ kind: value })}>
            {value === 'command' ? 'Run a command' : 'Agent with a goal'}
          </button>
        ))}
      </div>
      {name}
      <div className="field">
        <span className="field-label">Folder</span>
        <FolderField value={form.cwd} error={shown(errors.cwd)} onChange={(cwd) => onChange({ cwd })} onCommit={() => undefined} />
      </div>
      {form.kind === 'agent' ? (
        <AgentJobFields form={form.agent} errors={tried ? agentFormErrors(form.agent) : null} onChange={(change) => onChange({ agent: { ...form.agent, ...change } })} retries={retriesField('Retries if a turn fails')} />
      ) : (
        <>
          <label className="field">
            <span className="field-label">Command</span>
            <textarea
              className="field-input field-mono new-job-command"
              data-testid="job-command"
              placeholder="npm test"
              spellCheck={false}
              rows={3}
              value={form.command}
              aria-invalid={shown(errors.command) !== null}
              onChange={(e) => onChange({ command: e.target.value })}
            />
            <span className="field-hint">Runs in your login shell, like typing it in a terminal in that folder.</span>
            {shown(errors.command) && <span className="field-error">{errors.command}</span>}
          </label>
          <div className="new-job-row">
            {retriesField('Retries if it fails')}
            <label className="field">
              <span className="field-label">
                Time limit, minutes <span className="field-optional">optional</span>
              </span>
              <input className="field-input" data-testid="job-timeout" inputMode="numeric" placeholder="no limit" value={form.timeoutMinutes} aria-invalid={shown(errors.timeout) !== null} onChange={(e) => onChange({ timeoutMinutes: e.target.value })} />
              {shown(errors.timeout) && <span className="field-error">{errors.timeout}</span>}
            </label>
          </div>
          <label className="new-job-check">
            <input type="checkbox" checked={form.progressFromOutput} onChange={(e) => onChange({ progressFromOutput: e.target.checked })} />
            Show progress from percentages and counts (like “42%” or “3/10”) in the output
          </label>
          <label className="new-job-check">
            <input type="checkbox" data-testid="job-rerun-if-lost" checked={form.rerunIfLost} onChange={(e) => onChange({ rerunIfLost: e.target.checked })} />
            Safe to start over: if a run is cut off while Wheelhouse is closed (say, the computer restarts), run it again from the beginning
          </label>
        </>
      )}
    </>
  );
}
