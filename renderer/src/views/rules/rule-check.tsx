import { CircleAlert, LoaderCircle, SearchCheck } from 'lucide-react';
import { Fragment, useId, useState } from 'react';
import type { ExecPolicyCheckResult } from '../../../../shared/protocol/methods/exec-policy.js';
import { useRulesStore } from '../../services/services.js';
import { DecisionBadge } from './decision-badge.js';
import { decisionWords } from '../../format/decided-by.js';
import { accessSentence } from '../../format/thread-access.js';
import { InlineCode } from '../common/inline-code.js';
import '../conversation/decided-by.css';

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

const VERBS: Readonly<Record<ExecPolicyCheckResult['decision'], string>> = {
  allow: 'Runs without asking',
  prompt: 'Asks you first',
  forbidden: 'Never runs',
};

const VERDICT_WORDS: Readonly<Record<'allow' | 'prompt' | 'forbidden' | 'unmatched', string>> = {
  allow: 'allowed',
  prompt: 'asks',
  forbidden: 'blocked',
  unmatched: 'no rule; the thread’s settings decide',
};

/** What the runtime would do, who would decide, in words; how it read the command and the settings it assumed, on demand. */
function CheckResult({ result }: { readonly result: ExecPolicyCheckResult }) {
  const words = decisionWords({
    decidedBy: result.decidedBy,
    outcome: result.decision === 'forbidden' ? { by: 'policy', reason: null } : null,
    waiting: result.decision === 'prompt',
  });
  return (
    <div className="rule-check-result" data-testid="rule-check-result" data-decision={result.decision} role="status">
      <div className="rule-check-verdict">
        <DecisionBadge decision={result.decision} />
        <span className="rule-check-verb">{VERBS[result.decision]}</span>
      </div>
      <p className="rule-check-decided" data-testid="rule-check-decided-by">
        {words.line}.
      </p>
      {result.commands.length > 1 && (
        <ul className="rule-check-commands">
          {result.commands.map((verdict, index) => (
            <li key={index}>
              <code>{verdict.command.join(' ')}</code> — {VERDICT_WORDS[verdict.decision]}
            </li>
          ))}
        </ul>
      )}
      <details className="decided-by-details rule-check-details" data-testid="rule-check-details">
        <summary>Details</summary>
        <dl>
          <dt>How it was read</dt>
          <dd>
            <InlineCode text={result.reason} />
          </dd>
          <dt>Settings assumed</dt>
          <dd>
            {accessSentence({ sandbox: result.sandbox, approvalPolicy: result.approvalPolicy, sandboxAvailable: true })} (approval policy{' '}
            <code>{result.approvalPolicy}</code>, sandbox <code>{result.sandbox}</code>)
          </dd>
          {words.details.map(([term, value]) => (
            <Fragment key={term}>
              <dt>{term}</dt>
              <dd>{value}</dd>
            </Fragment>
          ))}
        </dl>
      </details>
    </div>
  );
}
