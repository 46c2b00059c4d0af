import { X } from 'lucide-react';
import { useEffect, useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useJobsStore, useMachinesStore, useThreadsStore } from '../../services.js';
import { askNotificationPermission } from '../../stores/web-notifications.js';
import { FolderField } from '../setup/folder-field.js';
import { AgentJobFields, agentFormErrors, agentParams, EMPTY_AGENT_FORM, wholeNumber, type AgentJobForm } from './agent-job-fields.js';

/**
 * "New job", for someone who does not live in a terminal: a name, a folder
 * (typed or browsed), then either the command (where it runs, how often to
 * retry, an optional time limit) or an agent's goal with its budgets and approvals.
 */
export function NewJobDialog({ onClose }: { readonly onClose: () => void }) {
  const titleId = useId();
  const projectFolder = useThreadsStore((s) => s.projectFolder);
  const create = useJobsStore((s) => s.create);
  const creating = useJobsStore((s) => s.creating);
  const show = useJobsStore((s) => s.show);
  const [kind, setKind] = useState<'command' | 'agent'>('command');
  const [agentForm, setAgentForm] = useState<AgentJobForm>(EMPTY_AGENT_FORM);
  const [name, setName] = useState('');
  const [cwd, setCwd] = useState(projectFolder ?? '');
  const [command, setCommand] = useState('');
  const [retries, setRetries] = useState('3');
  const [timeoutMinutes, setTimeoutMinutes] = useState('');
  const [progressFromOutput, setProgressFromOutput] = useState(true);
  const [rerunIfLost, setRerunIfLost] = useState(false);
  const [tried, setTried] = useState(false);
  const machines = useMachinesStore((s) => s.list);
  const loadMachines = useMachinesStore((s) => s.load);
  const [environmentId, setEnvironmentId] = useState('local');
  const [remoteCwd, setRemoteCwd] = useState('');
  useEffect(() => {
    void loadMachines();
  }, [loadMachines]);
  // An agent works on this computer for now; only a command may run elsewhere.
  const runsOn = kind === 'command' ? environmentId : 'local';
  const machine = runsOn === 'local' ? null : (machines?.find((candidate) => candidate.environmentId === runsOn) ?? null);
  const chooseMachine = (id: string) => {
    setEnvironmentId(id);
    setRemoteCwd(machines?.find((candidate) => candidate.environmentId === id)?.path ?? '');
  };

  const retriesValue = wholeNumber(retries, 0, 100);
  const timeoutValue = timeoutMinutes.trim() === '' ? undefined : wholeNumber(timeoutMinutes, 1, 43_200);
  const agentErrors = agentFormErrors(agentForm);
  const folder = machine ? remoteCwd.trim() : cwd.trim();
  const errors = {
    cwd: machine
      ? folder.startsWith('/')
        ? null
        : `Type the full path of a folder on ${machine.name}, starting with /.`
      : folder === ''
        ? `Choose the folder the ${kind === 'agent' ? 'agent works' : 'command runs'} in.`
        : null,
    command: kind === 'command' && command.trim() === '' ? 'Type the command to run.' : null,
    retries: retriesValue === null ? 'A whole number from 0 to 100.' : null,
    timeout: kind === 'command' && timeoutValue === null ? 'Whole minutes (1 or more), or leave it empty for no limit.' : null,
  };
  const valid = Object.values(errors).every((e) => e === null) && (kind === 'command' || Object.values(agentErrors).every((e) => e === null));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (!valid) return;
    void askNotificationPermission();
    const shared = { cwd: folder, maxAttempts: retriesValue ?? 3, ...(name.trim() ? { name: name.trim() } : {}) };
    const job = await create(
      kind === 'agent'
        ? { kind: 'agent', ...shared, ...agentParams(agentForm) }
        : {
            kind: 'command',
            ...shared,
            command: command.trim(),
            ...(runsOn !== 'local' ? { environmentId: runsOn } : {}),
            progressFromOutput,
            rerunIfLost,
            ...(timeoutValue !== undefined && timeoutValue !== null ? { timeoutMs: timeoutValue * 60_000 } : {}),
          },
    );
    if (job) {
      onClose();
      show(job.id);
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && !event.defaultPrevented) onClose();
  };
  const shown = (error: string | null) => (tried ? error : null);

  return (
    <div className="dialog-backdrop" onPointerDown={(e) => e.target === e.currentTarget && onClose()}>
      <form className="dialog new-job-dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="new-job-dialog" onKeyDown={onKeyDown} onSubmit={(e) => void submit(e)}>
        <div className="dialog-head">
          <h2 id={titleId} className="dialog-title">
            New job
          </h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
            <X size={15} strokeWidth={2} aria-hidden="true" />
          </button>
        </div>
        <div className="new-job-body">
          <div className="segmented new-job-kind" role="radiogroup" aria-label="Kind of job">
            {(['command', 'agent'] as const).map((value) => (
              <button key={value} type="button" role="radio" aria-checked={kind === value} className="segment" data-testid={`job-kind-${value}`} onClick={() => setKind(value)}>
                {value === 'command' ? 'Run a command' : 'Agent with a goal'}
              </button>
            ))}
          </div>
          <label className="field">
            <span className="field-label">
              Name <span className="field-optional">optional</span>
            </span>
            <input className="field-input" data-testid="job-name" placeholder="Nightly build" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
          </label>
          {kind === 'command' && machines && machines.length > 1 && (
            <label className="field">
              <span className="field-label">Run on</span>
              <select className="field-input" data-testid="job-run-on" value={environmentId} onChange={(e) => chooseMachine(e.target.value)}>
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
          {machine ? (
            <label className="field">
              <span className="field-label">Folder on {machine.name}</span>
              <input
                className="field-input field-mono"
                data-testid="job-remote-cwd"
                placeholder="/home/you/project"
                spellCheck={false}
                value={remoteCwd}
                aria-invalid={shown(errors.cwd) !== null}
                onChange={(e) => setRemoteCwd(e.target.value)}
              />
              {shown(errors.cwd) && <span className="field-error">{errors.cwd}</span>}
            </label>
          ) : (
            <div className="field">
              <span className="field-label">Folder</span>
              <FolderField value={cwd} error={shown(errors.cwd)} onChange={setCwd} onCommit={() => undefined} />
            </div>
          )}
          {kind === 'agent' ? (
            <AgentJobFields
              form={agentForm}
              errors={tried ? agentErrors : null}
              onChange={(change) => setAgentForm((form) => ({ ...form, ...change }))}
              retries={
                <label className="field">
                  <span className="field-label">Retries if a turn fails</span>
                  <input className="field-input" data-testid="job-retries" inputMode="numeric" value={retries} aria-invalid={shown(errors.retries) !== null} onChange={(e) => setRetries(e.target.value)} />
                  {shown(errors.retries) && <span className="field-error">{errors.retries}</span>}
                </label>
              }
            />
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
                  value={command}
                  aria-invalid={shown(errors.command) !== null}
                  onChange={(e) => setCommand(e.target.value)}
                />
                <span className="field-hint">Runs in your login shell, like typing it in a terminal in that folder.</span>
                {shown(errors.command) && <span className="field-error">{errors.command}</span>}
              </label>
              <div className="new-job-row">
                <label className="field">
                  <span className="field-label">Retries if it fails</span>
                  <input className="field-input" data-testid="job-retries" inputMode="numeric" value={retries} aria-invalid={shown(errors.retries) !== null} onChange={(e) => setRetries(e.target.value)} />
                  {shown(errors.retries) && <span className="field-error">{errors.retries}</span>}
                </label>
                <label className="field">
                  <span className="field-label">
                    Time limit, minutes <span className="field-optional">optional</span>
                  </span>
                  <input className="field-input" data-testid="job-timeout" inputMode="numeric" placeholder="no limit" value={timeoutMinutes} aria-invalid={shown(errors.timeout) !== null} onChange={(e) => setTimeoutMinutes(e.target.value)} />
                  {shown(errors.timeout) && <span className="field-error">{errors.timeout}</span>}
                </label>
              </div>
              <label className="new-job-check">
                <input type="checkbox" checked={progressFromOutput} onChange={(e) => setProgressFromOutput(e.target.checked)} />
                Show progress from percentages and counts (like “42%” or “3/10”) in the output
              </label>
              <label className="new-job-check">
                <input type="checkbox" data-testid="job-rerun-if-lost" checked={rerunIfLost} onChange={(e) => setRerunIfLost(e.target.checked)} />
                Safe to start over: if a run is cut off while Wheelhouse is closed (say, the computer restarts), run it again from the beginning
              </label>
            </>
          )}
        </div>
        <div className="dialog-actions">
          <button type="button" className="button-ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" data-testid="job-submit" disabled={creating}>
            Start job
          </button>
        </div>
      </form>
    </div>
  );
}
