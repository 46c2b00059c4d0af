import { LoaderCircle, TriangleAlert } from 'lucide-react';
import { broadRuleWarning } from '../../../../shared/policy/rule-breadth.js';
import { useId, useState } from 'react';
import type { ExecPolicyRuleInput } from '../../../../shared/protocol/methods/exec-policy.js';
import { formatPattern, parsePatternText } from '../../format/rule-pattern.js';
import type { RulesOutcome } from '../../stores/rules-store.js';

type Decision = ExecPolicyRuleInput['decision'];

const DECISIONS: readonly { value: Decision; label: string; hint: string }[] = [
  { value: 'allow', label: 'Allow', hint: 'runs without asking' },
  { value: 'prompt', label: 'Ask', hint: 'always asks you first' },
  { value: 'forbidden', label: 'Forbid', hint: 'never runs' },
];

/** Adds a rule, or edits one: pattern, decision, why. The runtime checks it; its error shows here and nothing is written. */
export function RuleForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  readonly initial?: ExecPolicyRuleInput;
  readonly submitLabel: string;
  readonly onSubmit: (rule: ExecPolicyRuleInput) => Promise<RulesOutcome>;
  readonly onCancel?: () => void;
}) {
  const id = useId();
  const [pattern, setPattern] = useState(initial ? formatPattern(initial.pattern) : '');
  const [decision, setDecision] = useState<Decision>(initial?.decision ?? 'allow');
  const [justification, setJustification] = useState(initial?.justification ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const warning = broadRuleWarning(parsePatternText(pattern), decision);

  const submit = async () => {
    setBusy(true);
    const outcome = await onSubmit({ pattern: parsePatternText(pattern), decision, justification: justification.trim() || null });
    setBusy(false);
    if (!outcome.ok) {
      setError(outcome.message);
      return;
    }
    setError(null);
    if (!initial) {
      setPattern('');
      setJustification('');
    }
  };

  return (
    <form
      className="rule-form"
      data-testid={initial ? 'rule-edit-form' : 'rule-add-form'}
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <div className="rule-form-row">
        <div className="field rule-form-pattern">
          <label className="field-label" htmlFor={`${id}-pattern`}>
            Command starts with
          </label>
          <input
            id={`${id}-pattern`}
            className="field-input field-mono"
            data-testid="rule-pattern"
            placeholder="git push|fetch"
            value={pattern}
            aria-invalid={error !== null}
            aria-describedby={`${id}-hint`}
            spellCheck={false}
            onChange={(event) => {
              setPattern(event.target.value);
              setError(null);
            }}
          />
        </div>
        <div className="field">
          <span className="field-label" id={`${id}-decision`}>
            Then
          </span>
          <div className="segmented" role="radiogroup" aria-labelledby={`${id}-decision`}>
            {DECISIONS.map((option) => (
              <button
                key={option.value}
                type="button"
                role="radio"
                className="segment"
                aria-checked={decision === option.value}
                title={option.hint}
                data-testid={`rule-decision-${option.value}`}
                onClick={() => setDecision(option.value)}
              >
                {option.label}
              </button>
            ))}
          </div>
        </div>
      </div>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-why`}>
          Why <span className="field-optional">optional, shown when it decides</span>
        </label>
        <input
          id={`${id}-why`}
          className="field-input"
          data-testid="rule-justification"
          value={justification}
          onChange={(event) => setJustification(event.target.value)}
        />
      </div>
      {warning && (
        <p className="callout callout-warning rule-warning" role="status" data-testid="rule-warning">
          <TriangleAlert size={15} strokeWidth={2} className="callout-icon" aria-hidden="true" />
          <span>{warning}</span>
        </p>
      )}
      {error ? (
        <p id={`${id}-hint`} className="field-error" role="alert" data-testid="rule-error">
          {error}
        </p>
      ) : (
        <p id={`${id}-hint`} className="field-hint">
          Words separated by spaces; <code>|</code> gives alternatives for one word. Matches every command that starts with these words.
        </p>
      )}
      <div className="rule-form-actions">
        {onCancel && (
          <button type="button" className="button-ghost" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" className="button button-secondary" data-testid="rule-submit" disabled={busy || pattern.trim() === ''}>
          {busy ? <LoaderCircle size={14} className="spin" aria-hidden="true" /> : null}
          {warning ? `${submitLabel} anyway` : submitLabel}
        </button>
      </div>
    </form>
  );
}
