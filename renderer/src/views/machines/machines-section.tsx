import { CircleAlert, KeyRound, Pencil, Plus, Trash2 } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import type { EnvironmentSummary, EnvironmentTestResult } from '../../../../shared/protocol/methods/environment.js';
import { useMachinesStore } from '../../services/services.js';
import type { MachineRefusal } from '../../stores/machines-store.js';
import { MachineForm } from './machine-form.js';
import './machines.css';

const STATUS_WORDS: Record<EnvironmentSummary['status'], string> = {
  ready: 'Connected',
  pending: 'Not connected yet',
  disconnected: 'Not connected',
  unknown: 'Unknown',
};

/** Where a machine is, in one line: `ana@build.example.org:22 · /home/ana/project`, or what a Slurm cluster asks for. */
function addressOf(machine: EnvironmentSummary): string {
  const parts: string[] = [];
  if (machine.host) parts.push(`${machine.user}@${machine.host}${machine.port && machine.port !== 22 ? `:${machine.port}` : ''}`);
  else if (machine.kind === 'slurm') parts.push('this computer');
  if (machine.path) parts.push(machine.path);
  const slurm = machine.slurm;
  if (slurm) {
    const asks = [
      slurm.partition && `partition ${slurm.partition}`,
      slurm.account && `account ${slurm.account}`,
      slurm.timeLimit && `time ${slurm.timeLimit}`,
      slurm.cpus && `${slurm.cpus} CPU${slurm.cpus === 1 ? '' : 's'}`,
      slurm.memory && `${slurm.memory} memory`,
      slurm.gpus && `${slurm.gpus} GPU${slurm.gpus === 1 ? '' : 's'}`,
    ].filter(Boolean);
    if (asks.length > 0) parts.push(asks.join(', '));
  }
  return parts.join(' · ');
}

/**
 * Settings → Machines: the computers and Slurm clusters jobs can run on,
 * with whether each is connected; add one with plain fields, test it (the
 * first time, its host key is shown to trust once), edit one (tested again
 * after), remove one no job needs.
 */
export function MachinesSection({ number }: { readonly number: number }) {
  const list = useMachinesStore((s) => s.list);
  const loadError = useMachinesStore((s) => s.loadError);
  const load = useMachinesStore((s) => s.load);
  const add = useMachinesStore((s) => s.add);
  const test = useMachinesStore((s) => s.test);
  const [adding, setAdding] = useState(false);
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="setup-step machines-section" aria-labelledby="step-machines" data-testid="machines-section">
      <h2 id="step-machines" className="setup-step-title">
        <span className="setup-step-number" aria-hidden="true">
          {number}
        </span>
        Machines
      </h2>
      <p className="setup-step-text">
        Computers and Slurm clusters that jobs can run on, besides this one. Jobs there keep running when Wheelhouse closes or the connection
        drops, and their output comes here.
      </p>
      {loadError && (
        <p className="field-error" role="alert">
          The machines could not be listed: {loadError}
        </p>
      )}
      {list && (
        <ul className="machines-list" aria-label="Machines" data-testid="machines-list">
          {list.map((machine) => (
            <MachineRow key={machine.environmentId} machine={machine} />
          ))}
        </ul>
      )}
      {adding && list ? (
        <MachineForm
          machines={list}
          onCancel={() => setAdding(false)}
          onAdd={async (params) => {
            const outcome = await add(params);
            if (!outcome.ok) return outcome.refusal;
            setAdding(false);
            // The first test asks about the host key at once, while the person is here.
            void test(params.environmentId);
            return null;
          }}
        />
      ) : (
        <button type="button" className="button button-secondary machines-add" data-testid="machines-add" onClick={() => setAdding(true)}>
          <Plus size={14} strokeWidth={2} aria-hidden="true" /> Add a machine
        </button>
      )}
    </section>
  );
}

function MachineRow({ machine }: { readonly machine: EnvironmentSummary }) {
  const test = useMachinesStore((s) => s.test);
  const remove = useMachinesStore((s) => s.remove);
  const add = useMachinesStore((s) => s.add);
  const list = useMachinesStore((s) => s.list);
  const result = useMachinesStore((s) => s.tests[machine.environmentId]);
  const testing = useMachinesStore((s) => s.testing.has(machine.environmentId));
  const [refusal, setRefusal] = useState<MachineRefusal | null>(null);
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const local = machine.kind === 'local';
  const stopEditing = () => {
    setEditing(false);
    // Back where the person was, for the keyboard.
    requestAnimationFrame(() => editButton.current?.focus());
  };
  return (
    <li className="machine-row" data-testid="machine-row" data-environment-id={machine.environmentId} data-status={machine.status}>
      <div className="machine-row-head">
        <span className="machine-name">{machine.name}</span>
        {!local && <span className="tag">{machine.kind === 'ssh' ? 'SSH' : 'Slurm'}</span>}
        {!local && (
          <span className="machine-status" data-status={machine.status} data-testid="machine-status">
            {testing ? 'Testing…' : machine.host === null && machine.status === 'ready' ? 'Ready' : STATUS_WORDS[machine.status]}
          </span>
        )}
        {!local && (
          <span className="machine-actions">
            <button type="button" className="button button-secondary button-small" data-testid="machine-test" disabled={testing} onClick={() => void test(machine.environmentId)}>
              Test
            </button>
            <button
              ref={editButton}
              type="button"
              className="icon-button"
              aria-label={`Edit ${machine.name}`}
              aria-expanded={editing}
              title="Edit"
              data-testid="machine-edit"
              onClick={() => {
                setRefusal(null);
                setEditing((open) => !open);
              }}
            >
              <Pencil size={14} aria-hidden="true" />
            </button>
            <button
              type="button"
              className="icon-button machine-remove"
              aria-label={`Remove ${machine.name}`}
              title="Remove"
              data-testid="machine-remove"
              onClick={async () => {
                const outcome = await remove(machine.environmentId);
                setRefusal(outcome.ok ? null : outcome.refusal);
              }}
            >
              <Trash2 size={14} aria-hidden="true" />
            </button>
          </span>
        )}
      </div>
      {local ? <p className="machine-note">Jobs run here unless you choose another machine for them.</p> : <p className="machine-address">{addressOf(machine)}</p>}
      {editing && list && (
        <MachineForm
          machines={list}
          editing={machine}
          onCancel={stopEditing}
          onAdd={async (params) => {
            const outcome = await add(params);
            if (!outcome.ok) return outcome.refusal;
            stopEditing();
            // A changed address or key is only known to work once it has connected again.
            void test(machine.environmentId);
            return null;
          }}
        />
      )}
      {!local && machine.status === 'disconnected' && machine.error && !result && <p className="machine-error">{machine.error}</p>}
      {result && !testing && <TestResult machine={machine} result={result} />}
      {refusal && (
        <div className="callout callout-warning" role="alert" data-testid="machine-remove-refused">
          <CircleAlert size={16} strokeWidth={2} className="callout-icon" aria-hidden="true" />
          <div>
            <p>
              {machine.name} is still in use, so it was not removed. Cancel these or let them finish, then remove it:
            </p>
            <ul className="machine-users">
              {refusal.jobs.map((job) => (
                <li key={job.jobId}>
                  Job “{job.name}” ({job.status})
                </li>
              ))}
            </ul>
            {refusal.jobs.length === 0 && <p className="callout-detail">{refusal.message}</p>}
          </div>
        </div>
      )}
    </li>
  );
}

function TestResult({ machine, result }: { readonly machine: EnvironmentSummary; readonly result: EnvironmentTestResult }) {
  const test = useMachinesStore((s) => s.test);
  if (result.unknownHostKey) {
    const { fingerprint, keyType } = result.unknownHostKey;
    return (
      <div className="callout callout-warning machine-host-key" data-testid="machine-host-key">
        <KeyRound size={16} strokeWidth={2} className="callout-icon" aria-hidden="true" />
        <div>
          <p className="callout-title">Is this really {machine.host}?</p>
          <p>
            Wheelhouse has not connected to it before. It identifies itself with this key fingerprint ({keyType}):
          </p>
          <p>
            <code data-testid="machine-fingerprint">{fingerprint}</code>
          </p>
          <p>
            Trust it only if it matches the fingerprint the machine’s owner gives you. Wheelhouse remembers it, and refuses the connection if
            it ever changes.
          </p>
          <button type="button" className="button button-primary button-small" data-testid="machine-trust" onClick={() => void test(machine.environmentId, fingerprint)}>
            Trust this key and connect
          </button>
        </div>
      </div>
    );
  }
  if (!result.ok) {
    return (
      <p className="field-error machine-error" role="alert" data-testid="machine-test-error">
        {result.error}
      </p>
    );
  }
  return (
    <div className="machine-test-ok" data-testid="machine-test-ok">
      <p>
        Works: one command took {Math.round(result.latencyMs ?? 0)} ms{result.connectMs !== null ? `, connecting ${Math.round(result.connectMs)} ms` : ''}.
      </p>
      <details>
        <summary>What it said</summary>
        <pre className="machine-test-output">{[result.uname, result.id, result.scheduler].filter(Boolean).join('\n')}</pre>
      </details>
    </div>
  );
}
