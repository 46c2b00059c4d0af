import { CircleAlert, LoaderCircle, SearchCheck } from 'lucide-react';
import { useId, useState } from 'react';
import type { ExecPolicyCheckResult } from '../../../../shared/protocol/methods/exec-policy.js';
import { useRulesStore } from '../../services.js';
import { DecisionBadge } from './decision-badge.js';

type Checked = { readonly ok: true; readonly result: ExecPolicyCheckResult } | { readonly ok: false; readonly message: string };

/** "Test a command": what the runtime would decide for it, and which rule decided; nothing runs. */
export function RuleCheck({ threadId }: { readonly threadId: string | null }) {
  const id = useId();
  const check = useRulesStore((s) => s.check);
  const [command, setCommand] = useState('');
  const [checked, setChecked] = useState<Checked | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    if (command.trim() === '') return;
    setBusy(true);
    setChecked(await check(command, threadId));
    setBusy(false);
  };
  return (
    <div className="rule-check">
      <label className="field-label" htmlFor={`${id}-command`}>
        Test a command
      </label>
      <form
        className="rule-check-row"
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <input
          id={`${id}-command`}
          className="field-input field-mono"
          data-testid="rule-check-input"
          placeholder="git push origin main && ls"
          value={command}
          spellCheck={false}
          onChange={(event) => setCommand(event.target.value)}
        />
        <button type="submit" className="button button-secondary" data-testid="rule-check-submit" disabled={busy || command.trim() === ''}>
          {busy ? <LoaderCircle size={14} className="spin" aria-hidden="true" /> : <SearchCheck size={14} strokeWidth={2} aria-hidden="true" />}
          Check
        </button>
      </form>
      {checked && !checked.ok && (
        <p className="field-error" role="alert">
          <CircleAlert size={14} strokeWidth={2} aria-hidden="true" /> {checked.message}
        </p>
      )}
      {checked?.ok && <CheckResult result={checked.result} />}
    </div>
  );
}

function CheckResult({ result }: { readonly result: ExecPolicyCheckResult }) {
  const verb = result.decision === 'allow' ? 'Runs without asking' : result.decision === 'prompt' ? 'Asks you first' : 'Never runs';
  return (
    <div className="rule-check-result" data-testid="rule-check-result" data-decision={result.decision} role="status">
      <div className="rule-check-verdict">
        <DecisionBadge decision={result.decision} />
        <span className="rule-check-verb">{verb}</span>
        <span className="rule-check-context">
          approval policy {result.approvalPolicy}, sandbox {result.sandbox}
        </span>
      </div>
      <p className="rule-check-decided" data-testid="rule-check-decided-by">
        Decided by {result.decidedBy.label}
      </p>
      <p className="field-hint">{result.reason}</p>
      {result.commands.length > 1 && (
        <ul className="rule-check-commands">
          {result.commands.map((verdict, index) => (
            <li key={index}>
              <code>{verdict.command.join(' ')}</code> — {verdict.decision === 'unmatched' ? 'no rule' : verdict.decision}
              {verdict.source ? ` (${verdict.source.split('/').pop()})` : ''}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
