import { useEffect, type ReactNode } from 'react';
import { agentFormErrors, jobTemplateErrors, runsElsewhere, type JobTemplateForm } from '../../format/job-form.js';
import { useMachinesStore } from '../../services/services.js';
import { FolderField } from '../setup/folder-field.js';
import { AgentJobFields } from './agent-job-fields.js';

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
  const machines = useMachinesStore((s) => s.list);
  const loadMachines = useMachinesStore((s) => s.load);
  useEffect(() => {
    void loadMachines();
  }, [loadMachines]);
  const machine = runsElsewhere(form) ? (machines?.find((candidate) => candidate.environmentId === form.environmentId) ?? null) : null;
  const machineLabel = machine?.name ?? form.environmentId;
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
      {form.kind === 'command' && machines && machines.length > 1 && (
        <label className="field">
          <span className="field-label">Run on</span>
          <select
            className="field-input"
            data-testid="job-run-on"
            value={form.environmentId}
            onChange={(e) => onChange({ environmentId: e.target.value, remoteCwd: machines.find((candidate) => candidate.environmentId === e.target.value)?.path ?? '', arrayTasks: '' })}
          >
            {machines.map((candidate) => (
              <option key={candidate.environmentId} value={candidate.environmentId}>
                {candidate.name}
                {candidate.kind === 'slurm' ? ' (Slurm cluster)' : candidate.status === 'disconnected' ? ' (not connected)' : ''}
              </option>
            ))}
          </select>
          {machine && (
            <span className="field-hint">
              {machine.kind === 'slurm'
                ? 'Submitted to the cluster as a batch job; it waits there until the cluster has room.'
                : 'Runs there in your login shell, and keeps running if Wheelhouse closes or the connection drops.'}
            </span>
          )}
        </label>
      )}
      {runsElsewhere(form) ? (
        <label className="field">
          <span className="field-label">Folder on {machineLabel}</span>
          <input
            className="field-input field-mono"
            data-testid="job-remote-cwd"
            placeholder="/home/you/project"
            spellCheck={false}
            value={form.remoteCwd}
            aria-invalid={shown(errors.cwd) !== null}
            onChange={(e) => onChange({ remoteCwd: e.target.value })}
          />
          {shown(errors.cwd) && <span className="field-error">{errors.cwd}</span>}
        </label>
      ) : (
        <div className="field">
          <span className="field-label">Folder</span>
          <FolderField value={form.cwd} error={shown(errors.cwd)} onChange={(cwd) => onChange({ cwd })} onCommit={() => undefined} />
        </div>
      )}
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
          {machine?.kind === 'slurm' && (
            <label className="field">
              <span className="field-label">
                Tasks <span className="field-optional">optional</span>
              </span>
              <input className="field-input" data-testid="job-array-tasks" inputMode="numeric" placeholder="1" value={form.arrayTasks} aria-invalid={shown(errors.arrayTasks) !== null} onChange={(e) => onChange({ arrayTasks: e.target.value })} />
              <span className="field-hint">A job array: the command runs this many times on the cluster, each with its number (0, 1, …) in SLURM_ARRAY_TASK_ID. A retry runs again only the tasks that failed.</span>
              {shown(errors.arrayTasks) && <span className="field-error">{errors.arrayTasks}</span>}
            </label>
          )}
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
