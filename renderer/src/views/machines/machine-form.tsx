import { CircleAlert } from 'lucide-react';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { EnvironmentAddParams, EnvironmentSummary, SlurmResourcesParams } from '../../../../shared/protocol/methods/environment.js';
import type { MachineRefusal } from '../../stores/machines-store.js';

type Kind = 'ssh' | 'slurm';
/** Where a Slurm cluster's `sbatch` runs: through a login host over SSH, or here (this computer is a node). */
type SlurmPlace = 'login' | 'here';

interface Fields {
  name: string;
  user: string;
  host: string;
  port: string;
  folder: string;
  privateKey: string;
  partition: string;
  account: string;
  timeLimit: string;
  cpus: string;
  memory: string;
  gpus: string;
}

const EMPTY: Fields = { name: '', user: '', host: '', port: '22', folder: '', privateKey: '', partition: '', account: '', timeLimit: '', cpus: '', memory: '', gpus: '' };

/** The fields of a machine being edited, as it was added (the key is never shown: the runtime keeps it). */
function fieldsOf(machine: EnvironmentSummary): Fields {
  const slurm = machine.slurm ?? {};
  const text = (value: string | number | undefined | null) => (value === undefined || value === null ? '' : String(value));
  return {
    name: machine.name,
    user: text(machine.user),
    host: text(machine.host),
    port: text(machine.port ?? 22),
    folder: text(machine.path),
    privateKey: '',
    partition: text(slurm.partition),
    account: text(slurm.account),
    timeLimit: text(slurm.timeLimit),
    cpus: text(slurm.cpus),
    memory: text(slurm.memory),
    gpus: text(slurm.gpus),
  };
}

/** The checks the runtime makes too, said before sending so the person sees them by the field. */
function errorsOf(kind: Kind, place: SlurmPlace, f: Fields): Partial<Record<keyof Fields, string>> {
  const errors: Partial<Record<keyof Fields, string>> = {};
  const overSsh = kind === 'ssh' || place === 'login';
  if (overSsh) {
    if (!/^[A-Za-z0-9._-]+$/.test(f.user.trim())) errors.user = 'The account name on that machine, like “ana”.';
    if (!/^[A-Za-z0-9.:[\]-]+$/.test(f.host.trim())) errors.host = 'A host name or address, like build.example.org.';
    const port = Number(f.port);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) errors.port = 'A port from 1 to 65535 (SSH uses 22).';
  }
  if (f.folder.trim() !== '' && !f.folder.trim().startsWith('/')) errors.folder = 'A full path on that machine, starting with /.';
  if (kind === 'slurm') {
    if (f.timeLimit.trim() && !/^(\d+-)?\d+(:\d+){0,2}$/.test(f.timeLimit.trim())) errors.timeLimit = 'Minutes, or hours:minutes:seconds.';
    if (f.cpus.trim() && !/^[1-9]\d*$/.test(f.cpus.trim())) errors.cpus = 'A whole number, 1 or more.';
    if (f.memory.trim() && !/^\d+[KMGT]?$/i.test(f.memory.trim())) errors.memory = 'A size such as 4G or 500M.';
    if (f.gpus.trim() && !/^\d+$/.test(f.gpus.trim())) errors.gpus = 'A whole number.';
  }
  return errors;
}

/** An id the runtime accepts, from the name or host, not one of `taken`. */
function newId(base: string, taken: readonly string[]): string {
  const slug = base.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+|-+$/g, '').slice(0, 48) || 'machine';
  let id = slug === 'local' ? 'local-1' : slug;
  for (let n = 2; taken.includes(id); n++) id = `${slug}-${n}`;
  return id;
}

/**
 * The environment/add request the fields describe (the address as `ssh://`, `slurm+ssh://` or `slurm:///`):
 * a new id, or the edited machine's own (the runtime then replaces it, keeping its saved key when none is sent).
 */
function paramsOf(kind: Kind, place: SlurmPlace, f: Fields, taken: readonly string[], editing: EnvironmentSummary | null): EnvironmentAddParams {
  const folder = f.folder.trim().replace(/\/+$/, '');
  const path = folder.split('/').map(encodeURIComponent).join('/');
  const host = f.host.trim();
  const address = `${encodeURIComponent(f.user.trim())}@${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${Number(f.port)}${path}`;
  const execServerUrl = kind === 'ssh' ? `ssh://${address}` : place === 'login' ? `slurm+ssh://${address}` : `slurm://${path || '/'}`;
  const slurm: SlurmResourcesParams = {
    ...(f.partition.trim() ? { partition: f.partition.trim() } : {}),
    ...(f.account.trim() ? { account: f.account.trim() } : {}),
    ...(f.timeLimit.trim() ? { timeLimit: f.timeLimit.trim() } : {}),
    ...(f.cpus.trim() ? { cpus: Number(f.cpus) } : {}),
    ...(f.memory.trim() ? { memory: f.memory.trim().toUpperCase() } : {}),
    ...(f.gpus.trim() ? { gpus: Number(f.gpus) } : {}),
  };
  const name = f.name.trim() || (kind === 'slurm' && place === 'here' ? 'Slurm on this computer' : `${f.user.trim()}@${host}`);
  // A pinned host key still names the same host only if the address it was pinned for is unchanged.
  const sameHost = editing !== null && editing.host === host && editing.port === Number(f.port);
  return {
    environmentId: editing?.environmentId ?? newId(f.name.trim() || (kind === 'slurm' && place === 'here' ? 'slurm' : host), taken),
    execServerUrl,
    name,
    ...(sameHost && editing.hostKeyFingerprint ? { hostKeyFingerprint: editing.hostKeyFingerprint } : {}),
    ...(f.privateKey.trim() && (kind === 'ssh' || place === 'login') ? { privateKey: `${f.privateKey.trim()}\n` } : {}),
    ...(kind === 'slurm' ? { slurm } : {}),
  };
}

/**
 * "Add a machine" in Settings → Machines, and "Edit" of one (`editing`, the
 * same fields filled in): plain fields for an SSH host or a Slurm cluster
 * (through its login host, or this computer as a node). The address is built
 * here; the runtime checks it again and says what is wrong, or which jobs
 * still run on the machine being changed.
 */
export function MachineForm({
  machines,
  editing = null,
  onAdd,
  onCancel,
}: {
  readonly machines: readonly EnvironmentSummary[];
  readonly editing?: EnvironmentSummary | null;
  /** Sends the request; null when it was done, else why not. */
  readonly onAdd: (params: EnvironmentAddParams) => Promise<MachineRefusal | null>;
  readonly onCancel: () => void;
}) {
  const [kind, setKind] = useState<Kind>(editing?.kind === 'slurm' ? 'slurm' : 'ssh');
  const [place, setPlace] = useState<SlurmPlace>(editing?.kind === 'slurm' && editing.host === null ? 'here' : 'login');
  const [fields, setFields] = useState<Fields>(() => (editing ? fieldsOf(editing) : EMPTY));
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<MachineRefusal | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = errorsOf(kind, place, fields);
  const shown = (key: keyof Fields) => (tried ? (errors[key] ?? null) : null);
  const overSsh = kind === 'ssh' || place === 'login';
  const keptKey = editing?.hasPrivateKey === true;
  const machineName = editing?.name ?? '';
  const editingId = editing?.environmentId ?? null;

  // An edit opened from the keyboard goes on from the first field, not from the page's top.
  useEffect(() => {
    if (editingId !== null) formRef.current?.querySelector<HTMLInputElement>('[data-testid="machine-name"]')?.focus();
  }, [editingId]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (Object.keys(errors).length > 0) return;
    setBusy(true);
    const problem = await onAdd(paramsOf(kind, place, fields, machines.map((machine) => machine.environmentId), editing));
    setBusy(false);
    setFailure(problem);
  };
  const field = (key: keyof Fields, label: string, options: { placeholder?: string; optional?: boolean; hint?: string; mono?: boolean; numeric?: boolean } = {}) => (
    <label className="field">
      <span className="field-label">
        {label} {options.optional ? <span className="field-optional">optional</span> : null}
      </span>
      <input
        className={options.mono ? 'field-input field-mono' : 'field-input'}
        data-testid={`machine-${key}`}
        placeholder={options.placeholder}
        inputMode={options.numeric ? 'numeric' : undefined}
        spellCheck={false}
        value={fields[key]}
        aria-invalid={shown(key) !== null}
        onChange={(event) => setFields((current) => ({ ...current, [key]: event.target.value }))}
      />
      {options.hint && <span className="field-hint">{options.hint}</span>}
      {shown(key) && <span className="field-error">{shown(key)}</span>}
    </label>
  );

  return (
    <form
      ref={formRef}
      className="machine-form"
      data-testid="machine-form"
      aria-label={editing ? `Edit ${machineName}` : 'Add a machine'}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
      onSubmit={(event) => void submit(event)}
    >
      <div className="segmented" role="radiogroup" aria-label="Kind of machine">
        {(['ssh', 'slurm'] as const).map((value) => (
          <button key={value} type="button" role="radio" aria-checked={kind === value} className="segment" data-testid={`machine-kind-${value}`} onClick={() => setKind(value)}>
            {value === 'ssh' ? 'A computer over SSH' : 'A Slurm cluster'}
          </button>
        ))}
      </div>
      {field('name', 'Name', { optional: true, placeholder: kind === 'ssh' ? 'Build server' : 'Lab cluster' })}
      {kind === 'slurm' && (
        <div className="segmented" role="radiogroup" aria-label="Where jobs are submitted">
          {(['login', 'here'] as const).map((value) => (
            <button key={value} type="button" role="radio" aria-checked={place === value} className="segment" data-testid={`machine-slurm-${value}`} onClick={() => setPlace(value)}>
              {value === 'login' ? 'Through its login host' : 'This computer is part of it'}
            </button>
          ))}
        </div>
      )}
      {overSsh && (
        <div className="machine-form-row">
          {field('user', 'User', { placeholder: 'ana' })}
          {field('host', kind === 'ssh' ? 'Host' : 'Login host', { placeholder: 'build.example.org' })}
          {field('port', 'Port', { numeric: true })}
        </div>
      )}
      {field('folder', 'Folder there', { optional: true, mono: true, placeholder: '/home/ana/project', hint: 'Where jobs start unless they say otherwise. Empty: the home folder.' })}
      {overSsh && (
        <label className="field">
          <span className="field-label">
            {keptKey ? 'New private key' : 'Private key'} <span className="field-optional">optional</span>
          </span>
          <textarea
            className="field-input field-mono machine-key"
            data-testid="machine-privateKey"
            rows={3}
            spellCheck={false}
            placeholder="-----BEGIN OPENSSH PRIVATE KEY-----"
            value={fields.privateKey}
            onChange={(event) => setFields((current) => ({ ...current, privateKey: event.target.value }))}
          />
          <span className="field-hint" data-testid="machine-key-hint">
            {keptKey
              ? 'A key is saved for this machine: leave empty to keep the saved key. To use your SSH agent’s keys instead, remove the machine and add it again.'
              : 'Kept in this computer’s keychain, never in Wheelhouse’s files. Empty: your SSH agent’s keys are used.'}
          </span>
        </label>
      )}
      {kind === 'slurm' && (
        <fieldset className="machine-form-resources">
          <legend className="field-label">What each job asks the cluster for (all optional)</legend>
          <div className="machine-form-row">
            {field('partition', 'Partition', { placeholder: 'default' })}
            {field('account', 'Account', { placeholder: 'none' })}
            {field('timeLimit', 'Time limit', { placeholder: '2:00:00' })}
          </div>
          <div className="machine-form-row">
            {field('cpus', 'CPUs', { numeric: true, placeholder: '1' })}
            {field('memory', 'Memory', { placeholder: '4G' })}
            {field('gpus', 'GPUs', { numeric: true, placeholder: '0' })}
          </div>
        </fieldset>
      )}
      {failure && failure.jobs.length > 0 && (
        <div className="callout callout-warning" role="alert" data-testid="machine-edit-refused">
          <CircleAlert size={16} strokeWidth={2} className="callout-icon" aria-hidden="true" />
          <div>
            <p>
              {machineName} is in use, so nothing was changed. Its name{kind === 'slurm' ? ' and what new jobs ask the cluster for' : ''} can be changed while jobs run there; its
              address, user, folder or key only once these end. Cancel them or let them finish, then save again:
            </p>
            <ul className="machine-users">
              {failure.jobs.map((job) => (
                <li key={job.jobId}>
                  Job “{job.name}” ({job.status})
                </li>
              ))}
            </ul>
          </div>
        </div>
      )}
      {failure && failure.jobs.length === 0 && (
        <p className="field-error" role="alert" data-testid="machine-add-error">
          {failure.message}
        </p>
      )}
      <div className="machine-form-actions">
        <button type="button" className="button-ghost" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" data-testid="machine-add" disabled={busy}>
          {editing ? 'Save and test' : 'Add and test'}
        </button>
      </div>
    </form>
  );
}
