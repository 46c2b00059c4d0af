import { Shield, ShieldAlert, ShieldOff } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import type { ThreadSandboxState } from '../../../../shared/protocol/methods/thread-sandbox.js';
import type { AskForApproval, SandboxMode } from '../../../../shared/protocol/thread.js';
import { useConnectionStore, useSandboxStore } from '../../services.js';
import { Popover } from '../common/popover.js';
import './sandbox.css';

const MODES: readonly { value: SandboxMode; label: string; hint: string }[] = [
  { value: 'read-only', label: 'Read only', hint: 'Commands can read your files but change nothing, with no network.' },
  {
    value: 'workspace-write',
    label: 'Workspace write',
    hint: 'Commands can change files in this thread’s folder (and temp files) only, with no network. Its .git stays read-only, so a commit asks you.',
  },
  { value: 'danger-full-access', label: 'Full access', hint: 'Commands run unconfined, with everything you can do.' },
];

const POLICIES: readonly { value: AskForApproval; label: string; hint: string }[] = [
  { value: 'untrusted', label: 'Ask unless it only reads', hint: 'Anything not known to be read-only or allowed by a rule asks you first.' },
  { value: 'on-request', label: 'Ask when the agent wants out of the sandbox', hint: 'Sandboxed commands run; leaving the sandbox asks you.' },
  { value: 'on-failure', label: 'Ask after the sandbox stops a command', hint: 'Commands run in the sandbox; a command it stops can be retried outside with your yes.' },
  { value: 'never', label: 'Never ask', hint: 'What would ask is refused instead; the agent is told why.' },
];

/** The thread's sandbox and approval policy in the conversation header; the person changes them here, the runtime validates. */
export function SandboxChip({ threadId }: { readonly threadId: string }) {
  const state = useSandboxStore((s) => s.byThread[threadId]);
  const load = useSandboxStore((s) => s.load);
  const connected = useConnectionStore((s) => s.status === 'connected');
  const [open, setOpen] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (connected) void load(threadId);
  }, [connected, load, threadId]);
  if (!state) return null;
  const Icon = !state.sandboxAvailable ? ShieldAlert : state.sandbox === 'danger-full-access' ? ShieldOff : Shield;
  return (
    <>
      <button
        ref={trigger}
        type="button"
        className="sandbox-chip"
        data-testid="sandbox-chip"
        data-sandboxed={state.sandboxAvailable && state.sandbox !== 'danger-full-access'}
        aria-expanded={open}
        title="Where this thread’s commands run, and when they ask you"
        onClick={() => setOpen(!open)}
      >
        <Icon size={13} strokeWidth={1.9} aria-hidden="true" />
        <span data-testid="sandbox-summary">{state.summary}</span>
      </button>
      <Popover open={open} anchor={trigger} onClose={() => setOpen(false)} label="Sandbox and approvals" className="sandbox-editor" testId="sandbox-editor">
        <SandboxForm state={state} />
      </Popover>
    </>
  );
}

function SandboxForm({ state }: { readonly state: ThreadSandboxState }) {
  const change = useSandboxStore((s) => s.change);
  return (
    <div className="sandbox-form">
      <fieldset className="sandbox-group">
        <legend className="field-label">Sandbox</legend>
        {!state.sandboxAvailable && (
          <p className="field-hint sandbox-missing">
            No sandbox on this machine ({state.sandboxUnavailableReason}): commands run with your full access. On Linux, installing bubblewrap
            (<code>bwrap</code>) turns it on.
          </p>
        )}
        {state.sandboxAvailable && state.sandboxNote && (
          <p className="field-hint sandbox-note" data-testid="sandbox-note">
            {state.sandboxNote}
          </p>
        )}
        {MODES.map((mode) => {
          const unavailable = !state.sandboxAvailable && mode.value !== 'danger-full-access';
          return (
            <label key={mode.value} className="sandbox-option" data-disabled={unavailable || undefined}>
              <input
                type="radio"
                name="sandbox-mode"
                data-testid={`sandbox-mode-${mode.value}`}
                checked={state.sandbox === mode.value}
                disabled={unavailable}
                onChange={() => void change(state.threadId, { sandbox: mode.value })}
              />
              <span>
                <span className="sandbox-option-label">{mode.label}</span>
                <span className="sandbox-option-hint">{mode.hint}</span>
              </span>
            </label>
          );
        })}
      </fieldset>
      <fieldset className="sandbox-group">
        <legend className="field-label">Approvals</legend>
        {POLICIES.map((policy) => (
          <label key={policy.value} className="sandbox-option">
            <input
              type="radio"
              name="approval-policy"
              data-testid={`approval-policy-${policy.value}`}
              checked={state.approvalPolicy === policy.value}
              onChange={() => void change(state.threadId, { approvalPolicy: policy.value })}
            />
            <span>
              <span className="sandbox-option-label">{policy.label}</span>
              <span className="sandbox-option-hint">{policy.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <p className="field-hint">Changes apply to this thread’s next commands. Your command rules (Settings) apply in every mode.</p>
    </div>
  );
}
