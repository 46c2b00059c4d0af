import { CircleAlert, CircleStop, KeyRound, LoaderCircle, Play, RotateCcw, Settings, Target } from 'lucide-react';
import { useState } from 'react';
import { FAILURE_ACTIONS, type TurnError } from '../../../../shared/protocol/thread.js';
import { useConversationStore, useSetupStore } from '../../services/services.js';
import type { TurnSummary } from '../../stores/conversation-model.js';
import { canContinue, newestTurnId } from '../../stores/conversation-store.js';
import { formatDuration, formatUsage } from '../../format/usage.js';

/** The end of a turn: how it went (usage, Stopped, the error with Retry), or that the agent is still working. */
export function TurnEnd({ turn }: { readonly turn: TurnSummary }) {
  switch (turn.status) {
    case 'inProgress':
      return <Working turn={turn} />;
    case 'completed':
      return <Footer turn={turn} />;
    case 'interrupted':
      // The budget's state and its actions live in one place, the banner above the composer.
      return <Footer turn={turn} stopped={turn.error?.kind === 'budgetExhausted' ? 'budget' : 'person'} />;
    case 'failed':
      return turn.error ? <ErrorCard turn={turn} error={turn.error} /> : <Footer turn={turn} />;
    default: {
      const unknown: never = turn.status;
      return unknown;
    }
  }
}

function Working({ turn }: { readonly turn: TurnSummary }) {
  const stopping = useConversationStore((s) => s.stopping);
  return (
    <div className="turn-working" data-testid="turn-working" role="status">
      <LoaderCircle size={14} strokeWidth={2} className="spin" aria-hidden="true" />
      <span>{stopping ? 'Stopping…' : turn.retrying ? `Retrying (attempt ${turn.retrying.attempt})…` : 'Working…'}</span>
      {turn.retrying && !stopping && <span className="turn-working-reason">{turn.retrying.reason}</span>}
    </div>
  );
}

function Footer({ turn, stopped }: { readonly turn: TurnSummary; readonly stopped?: 'person' | 'budget' }) {
  const continueInterrupted = useConversationStore((s) => s.continueInterrupted);
  const offerContinue = useConversationStore(
    (s) => stopped === 'person' && s.revision >= 0 && s.activeTurnId === null && newestTurnId(s.data) === turn.id && canContinue(s.data),
  );
  const parts = [turn.model, turn.durationMs !== null ? formatDuration(turn.durationMs) : null].filter(
    (part): part is string => part !== null,
  );
  return (
    <div className="turn-footer" data-testid="turn-footer">
      {stopped && (
        <span className="turn-stopped" data-testid="turn-stopped">
          {stopped === 'budget' ? (
            <Target size={13} strokeWidth={2} aria-hidden="true" />
          ) : (
            <CircleStop size={13} strokeWidth={2} aria-hidden="true" />
          )}
          {stopped === 'budget'
            ? 'Stopped at the goal’s token budget'
            : turn.error
              ? `Interrupted: ${turn.error.message}`
              : 'Stopped'}
        </span>
      )}
      {parts.map((part) => (
        <span key={part} className="turn-footer-part">
          {part}
        </span>
      ))}
      {turn.usage && turn.usage.totalTokens > 0 && (
        <span className="turn-footer-part turn-usage" data-testid="turn-usage">
          {formatUsage(turn.usage)}
        </span>
      )}
      {offerContinue && (
        <button
          type="button"
          className="button button-secondary button-small turn-continue"
          data-testid="continue-turn"
          title="Ask the agent to pick up where it stopped"
          onClick={() => void continueInterrupted()}
        >
          <Play size={12} strokeWidth={2} aria-hidden="true" />
          Continue
        </button>
      )}
    </div>
  );
}

/** What happened, in a few words; the message says it in one sentence, and the card offers the one action that helps. */
const TITLES: Readonly<Record<TurnError['kind'], string>> = {
  cannotConnect: 'Could not reach the model server',
  unauthorized: 'The provider refused the API key',
  missingKey: 'No API key yet',
  modelNotFound: 'The provider has no such model',
  rateLimited: 'Too many requests for now',
  quotaExceeded: 'The account is out of credit',
  serverError: 'The provider had a problem',
  timeout: 'The provider took too long',
  streamInterrupted: 'The reply was cut off',
  badResponse: 'The provider sent something unreadable',
  budgetExhausted: 'The goal’s token budget is used up',
  configuration: 'A setting needs fixing',
  other: 'Something went wrong',
};

function ErrorCard({ turn, error }: { readonly turn: TurnSummary; readonly error: TurnError }) {
  const [showDetails, setShowDetails] = useState(false);
  const hasDetails = error.additionalDetails !== null || error.httpStatus !== null;
  return (
    <div className="turn-error" data-testid="turn-error" data-kind={error.kind} role="alert">
      <div className="turn-error-head">
        {error.kind === 'budgetExhausted' ? (
          <Target size={16} strokeWidth={2} className="turn-error-icon" aria-hidden="true" />
        ) : (
          <CircleAlert size={16} strokeWidth={2} className="turn-error-icon" aria-hidden="true" />
        )}
        <div className="turn-error-text">
          <p className="turn-error-title">{TITLES[error.kind]}</p>
          <p className="turn-error-message" data-testid="turn-error-message">
            {error.message}
          </p>
        </div>
      </div>
      {showDetails && (
        <pre className="turn-error-details" data-testid="turn-error-details">
          {[error.httpStatus !== null ? `HTTP ${error.httpStatus}` : null, error.additionalDetails].filter(Boolean).join('\n')}
        </pre>
      )}
      <div className="turn-error-actions">
        <ErrorAction turn={turn} error={error} />
        {hasDetails && (
          <button type="button" className="button-link" aria-expanded={showDetails} onClick={() => setShowDetails(!showDetails)}>
            {showDetails ? 'Hide details' : 'Details'}
          </button>
        )}
      </div>
    </div>
  );
}

/**
 * The failure's one action (FAILURE_ACTIONS). An action that sends the person
 * to Settings turns into Retry once something there was saved, so the fixed
 * message can be sent again without a second button beside the first.
 */
function ErrorAction({ turn, error }: { readonly turn: TurnSummary; readonly error: TurnError }) {
  const retry = useConversationStore((s) => s.retry);
  const running = useConversationStore((s) => s.activeTurnId !== null);
  // Only the newest turn can be sent again; an older card keeps its message but not a live button.
  const newest = useConversationStore((s) => s.revision >= 0 && newestTurnId(s.data) === turn.id);
  const openSettings = useSetupStore((s) => s.openSettings);
  const configRevision = useSetupStore((s) => s.configRevision);
  const [sentAt, setSentAt] = useState<number | null>(null);
  const action = FAILURE_ACTIONS[error.kind];
  const fixed = sentAt !== null && configRevision > sentAt;
  const toSettings = (focus?: 'apiKey') => {
    setSentAt(configRevision);
    openSettings(focus);
  };
  if (action === 'retry' || fixed) {
    return (
      <button
        type="button"
        className="button button-secondary button-small"
        data-testid="retry-turn"
        disabled={running || !newest}
        title={newest ? 'Send this message again' : 'Only the newest message can be sent again'}
        onClick={() => void retry(turn.id)}
      >
        <RotateCcw size={13} strokeWidth={2} aria-hidden="true" />
        Retry
      </button>
    );
  }
  switch (action) {
    case 'editKey':
      return (
        <button type="button" className="button button-secondary button-small" data-testid="turn-error-action" onClick={() => toSettings('apiKey')}>
          <KeyRound size={13} strokeWidth={2} aria-hidden="true" />
          Edit key
        </button>
      );
    case 'openSettings':
      return (
        <button type="button" className="button button-secondary button-small" data-testid="turn-error-action" onClick={() => toSettings()}>
          <Settings size={13} strokeWidth={2} aria-hidden="true" />
          Open settings
        </button>
      );
    case 'raiseBudget':
      // The goal banner above the composer holds the budget's state and its action.
      return null;
    default:
      return action satisfies never;
  }
}
