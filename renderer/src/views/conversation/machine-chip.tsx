import { Laptop, Server } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import type { EnvironmentSummary } from '../../../../shared/protocol/methods/environment.js';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useConnectionStore, useMachinesStore, useThreadsStore } from '../../services/services.js';
import { machineName } from '../../stores/machines-store.js';
import { Popover } from '../common/popover.js';
import './header-chip.css';
import './machine-chip.css';

/** Where the thread's commands run, in the conversation header: this computer or a machine over SSH, with its connection. */
export function MachineChip({ thread }: { readonly thread: Thread }) {
  const machines = useMachinesStore((s) => s.list);
  const load = useMachinesStore((s) => s.load);
  const connected = useConnectionStore((s) => s.status === 'connected');
  const [open, setOpen] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (connected && machines === null) void load();
  }, [connected, load, machines]);
  const where = thread.environments[0];
  const environmentId = where?.environmentId ?? 'local';
  const remote = environmentId !== 'local';
  const machine = machines?.find((candidate) => candidate.environmentId === environmentId);
  const state = !remote ? 'local' : machine?.status === 'ready' ? 'connected' : machine?.status === 'disconnected' ? 'disconnected' : 'pending';
  const name = machineName(machines, environmentId);
  // Only worth showing where there is somewhere else to run, or the thread already runs there.
  if (!remote && (machines === null || !machines.some((candidate) => candidate.kind === 'ssh'))) return null;
  const Icon = remote ? Server : Laptop;
  return (
    <>
      <button
        ref={trigger}
        type="button"
        className="header-chip machine-chip"
        data-testid="machine-chip"
        data-state={state}
        aria-expanded={open}
        title={remote ? `Commands run on ${name} in ${where?.cwd}${state === 'disconnected' ? ` — not connected: ${machine?.error ?? 'the connection dropped'}` : ''}` : 'Commands run on this computer'}
        onClick={() => setOpen(!open)}
      >
        <Icon size={13} strokeWidth={1.9} aria-hidden="true" />
        <span data-testid="machine-chip-name">{remote ? `${name}: ${where?.cwd}` : name}</span>
        {remote && <span className="machine-chip-dot" aria-label={state === 'connected' ? 'connected' : state === 'disconnected' ? 'not connected' : 'not connected yet'} />}
      </button>
      <Popover open={open} anchor={trigger} onClose={() => setOpen(false)} label="Where commands run" className="machine-editor" testId="machine-editor">
        <MachineForm thread={thread} machines={machines ?? []} current={environmentId} currentCwd={remote ? (where?.cwd ?? '') : ''} onDone={() => setOpen(false)} />
      </Popover>
    </>
  );
}

function MachineForm(props: {
  readonly thread: Thread;
  readonly machines: readonly EnvironmentSummary[];
  readonly current: string;
  readonly currentCwd: string;
  readonly onDone: () => void;
}) {
  const chooseMachine = useThreadsStore((s) => s.chooseMachine);
  const [choice, setChoice] = useState(props.current);
  const chosen = props.machines.find((candidate) => candidate.environmentId === choice);
  const [folder, setFolder] = useState(props.currentCwd || chosen?.path || '');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const remote = choice !== 'local';
  const apply = async () => {
    setSaving(true);
    const refused = await chooseMachine(props.thread.id, remote ? { environmentId: choice, cwd: folder.trim() } : null);
    setSaving(false);
    if (refused) setError(refused);
    else props.onDone();
  };
  return (
    <form
      className="machine-form"
      onSubmit={(event) => {
        event.preventDefault();
        void apply();
      }}
    >
      <label className="field">
        <span className="field-label">Run commands on</span>
        <select
          className="field-input"
          data-testid="machine-choice"
          value={choice}
          onChange={(event) => {
            const next = props.machines.find((candidate) => candidate.environmentId === event.target.value);
            setChoice(event.target.value);
            setFolder(event.target.value === props.current ? props.currentCwd : (next?.path ?? ''));
            setError(null);
          }}
        >
          {props.machines.map((candidate) => (
            <option key={candidate.environmentId} value={candidate.environmentId} disabled={candidate.kind === 'slurm'}>
              {candidate.name}
              {candidate.kind === 'slurm' ? ' (Slurm: jobs only)' : candidate.status === 'disconnected' ? ' (not connected)' : ''}
            </option>
          ))}
        </select>
        <span className="field-hint">
          {remote
            ? 'The agent’s commands run there in your login shell, with your rights there: this computer’s sandbox does not reach it, so each command asks first unless the thread has full access.'
            : 'The agent’s commands run here, in this thread’s folder and sandbox.'}
        </span>
      </label>
      {remote && (
        <label className="field">
          <span className="field-label">Folder on {chosen?.name ?? choice}</span>
          <input
            className="field-input field-mono"
            data-testid="machine-folder"
            placeholder="/home/you/project"
            spellCheck={false}
            value={folder}
            onChange={(event) => {
              setFolder(event.target.value);
              setError(null);
            }}
          />
        </label>
      )}
      {error && (
        <p className="field-error" role="alert" data-testid="machine-error">
          {error}
        </p>
      )}
      <div className="machine-actions">
        <button type="submit" className="button button-primary" data-testid="machine-apply" disabled={saving || (remote && folder.trim() === '')}>
          {saving ? 'Switching…' : 'Use for the next commands'}
        </button>
      </div>
    </form>
  );
}
