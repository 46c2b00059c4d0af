import { Shield, ShieldAlert, ShieldOff } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import type { ThreadSandboxState } from '../../../../shared/protocol/methods/thread-sandbox.js';
import type { AskForApproval, SandboxMode } from '../../../../shared/protocol/thread.js';
import { useConnectionStore, useSandboxStore } from '../../services/services.js';
import { Popover } from '../common/popover.js';
import { accessSentence } from '../../format/thread-access.js';
import './header-chip.css';
import './sandbox.css';

const MODES: readonly { value: SandboxMode; label: string; hint: string }[] = [
  { value: 'read-only', label: 'Read only', hint: 'Commands can read your files but change nothing, with no internet.' },
  { value: 'workspace-write', label: 'This folder', hint: 'Commands can change files in this thread’s folder (and temporary files) only, with no internet. Its .git folder stays read-only, so a commit asks you.' },
  { value: 'danger-full-access', label: 'Full access', hint: 'Commands can do anything you can, anywhere on this computer.' },
];

const POLICIES: readonly { value: AskForApproval; label: string; hint: string }[] = [
  { value: 'untrusted', label: 'Ask before anything that changes things', hint: 'Only commands known to just read, or allowed by your rules, run without asking. Every file change asks.' },
  { value: 'on-request', label: 'Ask before going beyond the above', hint: 'Commands and file changes within the limits above run; anything more asks you.' },
  { value: 'on-failure', label: 'Ask when something is blocked', hint: 'Everything runs within the limits above; if one is blocked, you can let it run without them.' },
  { value: 'never', label: 'Never ask', hint: 'What would ask is refused instead, and the agent is told why.' },
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
        className="header-chip sandbox-chip"
        data-testid="sandbox-chip"
        data-sandboxed={state.sandboxAvailable && state.sandbox !== 'danger-full-access'}
        aria-expanded={open}
        title="What the agent may do in this thread, and when it asks you"
        onClick={() => setOpen(!open)}
      >
        <Icon size={13} strokeWidth={1.9} aria-hidden="true" />
        <span data-testid="sandbox-summary">{accessSentence(state)}</span>
      </button>
      <Popover open={open} anchor={trigger} onClose={() => setOpen(false)} label="What the agent may do" className="sandbox-editor" testId="sandbox-editor">
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
        <legend className="field-label">What commands may touch</legend>
        {!state.sandboxAvailable && (
          <p className="field-hint sandbox-missing">
            This computer has no sandbox to keep commands in, so they can only run with full access. See the details below for how to add one.
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
        <legend className="field-label">When to ask you</legend>
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
      <details className="sandbox-details" data-testid="sandbox-details">
        <summary>Technical details</summary>
        <dl>
          <dt>Sandbox mode</dt>
          <dd>
            <code>{state.sandbox}</code>
            {state.sandboxChosen ? '' : ' (default)'}
          </dd>
          <dt>Approval policy</dt>
          <dd>
            <code>{state.approvalPolicy}</code>
            {state.approvalPolicyChosen ? '' : ' (default)'}
          </dd>
          <dt>Sandbox</dt>
          <dd>
            {state.sandboxAvailable
              ? state.sandboxKind ?? 'available'
              : `none (${state.sandboxUnavailableReason ?? 'unavailable'}); on Linux, installing bubblewrap (bwrap) adds one`}
          </dd>
        </dl>
      </details>
    </div>
  );
}
