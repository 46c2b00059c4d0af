import { CircleAlert, CircleCheck, KeyRound, ListRestart, LoaderCircle, RotateCcw, Zap } from 'lucide-react';
import type { ReactNode } from 'react';
import { FAILURE_ACTIONS } from '../../../../shared/protocol/thread.js';
import type { TestState } from '../../stores/setup-store.js';
import { formatDuration } from '../../format/usage.js';

/** What the failure's one action does on this screen: test again, open the key field, or go to the model field. */
export interface TestActions {
  readonly retest: () => void;
  readonly editKey: () => void;
  readonly chooseModel: () => void;
}

/**
 * The Test button, what the test found in one sentence with the one action
 * that helps, and (in Settings) the section's own Save with its saved state.
 */
export function TestRow({
  test,
  disabled,
  actions,
  save,
}: {
  readonly test: TestState;
  readonly disabled: boolean;
  readonly actions: TestActions;
  /** Settings only: the provider section saves by itself. */
  readonly save?: ReactNode;
}) {
  const running = test.status === 'running';
  return (
    <div className="test-row">
      <button type="button" className="button button-secondary" data-testid="setup-test" disabled={disabled || running} onClick={actions.retest}>
        {running ? <LoaderCircle size={14} className="spin" aria-hidden="true" /> : <Zap size={14} strokeWidth={2} aria-hidden="true" />}
        {running ? 'Testing…' : 'Test connection'}
      </button>
      <TestResult test={test} actions={actions} />
      {save}
    </div>
  );
}

function TestResult({ test, actions }: { readonly test: TestState; readonly actions: TestActions }) {
  switch (test.status) {
    case 'idle':
      return <span className="test-result test-result-idle">Sends a one-line message to check the key and the model.</span>;
    case 'running':
      return <span className="test-result test-result-idle">Asking the model to say “ready”…</span>;
    case 'failed':
      return (
        <span className="test-result" data-testid="test-result" data-ok="false" role="alert">
          <CircleAlert size={15} strokeWidth={2} className="test-result-bad" aria-hidden="true" />
          {test.message}
        </span>
      );
    case 'done': {
      const { result } = test;
      if (result.ok) {
        return (
          <span className="test-result" data-testid="test-result" data-ok="true" role="status">
            <CircleCheck size={15} strokeWidth={2} className="test-result-good" aria-hidden="true" />
            <span>
              Connected. <span className="test-result-model">{result.model}</span> answered
              {result.reply ? <> “{result.reply}”</> : null} in {formatDuration(result.latencyMs)}.
            </span>
          </span>
        );
      }
      return (
        <span className="test-result" data-testid="test-result" data-ok="false" data-kind={result.error.kind} role="alert">
          <CircleAlert size={15} strokeWidth={2} className="test-result-bad" aria-hidden="true" />
          <span>
            {result.error.message} <FailureAction kind={result.error.kind} actions={actions} />
          </span>
        </span>
      );
    }
    default: {
      const unknown: never = test;
      return unknown;
    }
  }
}

/** The one thing that helps, as a link-sized button after the sentence. */
function FailureAction({ kind, actions }: { readonly kind: keyof typeof FAILURE_ACTIONS; readonly actions: TestActions }) {
  const action = FAILURE_ACTIONS[kind];
  switch (action) {
    case 'retry':
      return (
        <button type="button" className="button-link test-action" data-testid="test-action" onClick={actions.retest}>
          <RotateCcw size={12} strokeWidth={2} aria-hidden="true" />
          Test again
        </button>
      );
    case 'editKey':
      return (
        <button type="button" className="button-link test-action" data-testid="test-action" onClick={actions.editKey}>
          <KeyRound size={12} strokeWidth={2} aria-hidden="true" />
          Edit key
        </button>
      );
    case 'openSettings':
      // Already in Settings: a wrong model is fixed in the model field; other setup gaps are named in the sentence.
      return kind === 'modelNotFound' ? (
        <button type="button" className="button-link test-action" data-testid="test-action" onClick={actions.chooseModel}>
          <ListRestart size={12} strokeWidth={2} aria-hidden="true" />
          Choose a model
        </button>
      ) : null;
    case 'raiseBudget':
      return null;
    default:
      return action satisfies never;
  }
}
