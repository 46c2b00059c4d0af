import { CircleAlert, CircleStop, LoaderCircle, Play, RotateCcw, Settings, Target } from 'lucide-react';
import { useState } from 'react';
import type { TurnError } from '../../../../shared/protocol/thread.js';
import { useConversationStore, useSetupStore } from '../../services.js';
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

const TITLES: Readonly<Record<TurnError['kind'], string>> = {
  unauthorized: 'The provider refused the API key',
  rateLimited: 'The provider is rate limiting requests',
  serverError: 'The provider could not be reached',
  timeout: 'The provider took too long',
  streamInterrupted: 'The reply was cut off',
  badResponse: 'The provider sent something unreadable',
  budgetExhausted: 'The goal’s token budget is used up',
  configuration: 'Wheelhouse needs setting up',
  other: 'Something went wrong',
};

function ErrorCard({ turn, error }: { readonly turn: TurnSummary; readonly error: TurnError }) {
  const retry = useConversationStore((s) => s.retry);
  const running = useConversationStore((s) => s.activeTurnId !== null);
  // Only the newest turn can be sent again; an older card keeps its message but not a live button.
  const newest = useConversationStore((s) => s.revision >= 0 && newestTurnId(s.data) === turn.id);
  const openSettings = useSetupStore((s) => s.openSettings);
  const [showDetails, setShowDetails] = useState(false);
  const budget = error.kind === 'budgetExhausted';
  const needsSettings = error.kind === 'unauthorized' || error.kind === 'configuration';
  return (
    <div className="turn-error" data-testid="turn-error" data-kind={error.kind} role="alert">
      <div className="turn-error-head">
        {budget ? (
          <Target size={16} strokeWidth={2} className="turn-error-icon" aria-hidden="true" />
        ) : (
          <CircleAlert size={16} strokeWidth={2} className="turn-error-icon" aria-hidden="true" />
        )}
        <div className="turn-error-text">
          <p className="turn-error-title">
            {TITLES[error.kind]}
            {error.httpStatus !== null && <span className="turn-error-status">HTTP {error.httpStatus}</span>}
          </p>
          <p className="turn-error-message" data-testid="turn-error-message">
            {error.message}
          </p>
        </div>
      </div>
      {showDetails && error.additionalDetails && <pre className="turn-error-details">{error.additionalDetails}</pre>}
      {(!budget || needsSettings || error.additionalDetails) && (
      <div className="turn-error-actions">
        {!budget && (
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
        )}
        {needsSettings && (
          <button type="button" className="button button-secondary button-small" onClick={openSettings}>
            <Settings size={13} strokeWidth={2} aria-hidden="true" />
            Open Settings
          </button>
        )}
        {error.additionalDetails && (
          <button type="button" className="button-link" onClick={() => setShowDetails(!showDetails)}>
            {showDetails ? 'Hide details' : 'Show details'}
          </button>
        )}
      </div>
      )}
    </div>
  );
}
