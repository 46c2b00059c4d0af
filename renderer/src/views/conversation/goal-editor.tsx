import { Pause, Play, Target, Trash2 } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import type { ThreadGoal } from '../../../../shared/protocol/thread.js';
import { useConnectionStore, useGoalStore } from '../../services/services.js';
import { goalProgress, goalStatusLabel, goalUsage, parseBudget } from '../../format/goal.js';
import { formatCount } from '../../format/usage.js';
import { Popover } from '../common/popover.js';

/** The header button showing the thread's goal (or offering one), and its editor. */
export function GoalButton({ threadId, disabled }: { readonly threadId: string; readonly disabled: boolean }) {
  const goal = useGoalStore((s) => s.goals[threadId]);
  const load = useGoalStore((s) => s.load);
  const open = useGoalStore((s) => s.editing === threadId);
  const openEditor = useGoalStore((s) => s.openEditor);
  const closeEditor = useGoalStore((s) => s.closeEditor);
  const connected = useConnectionStore((s) => s.status === 'connected');
  const trigger = useRef<HTMLButtonElement>(null);

  // While reconnecting the request would only fail (and toast); it runs once the link is back.
  useEffect(() => {
    if (connected) void load(threadId);
  }, [connected, load, threadId]);

  return (
    <>
      <button
        ref={trigger}
        type="button"
        className="goal-chip"
        data-testid="goal-button"
        data-status={goal?.status}
        aria-expanded={open}
        disabled={disabled}
        title={goal ? `Goal: ${goal.objective}` : 'Give this thread a goal and a token budget'}
        onClick={() => (open ? closeEditor() : openEditor(threadId))}
      >
        <Target size={14} strokeWidth={1.9} aria-hidden="true" />
        {goal ? (
          <>
            <span className="goal-chip-label">{goalStatusLabel(goal.status)}</span>
            <span className="goal-chip-usage">{goalUsage(goal)}</span>
          </>
        ) : (
          <span className="goal-chip-label">Goal</span>
        )}
      </button>
      <Popover open={open} anchor={trigger} onClose={closeEditor} label="Thread goal" className="goal-editor" testId="goal-editor">
        <GoalForm threadId={threadId} goal={goal ?? null} />
      </Popover>
    </>
  );
}

function GoalForm({ threadId, goal }: { readonly threadId: string; readonly goal: ThreadGoal | null }) {
  const save = useGoalStore((s) => s.save);
  const setStatus = useGoalStore((s) => s.setStatus);
  const clear = useGoalStore((s) => s.clear);
  const closeEditor = useGoalStore((s) => s.closeEditor);
  const [objective, setObjective] = useState(goal?.objective ?? '');
  const [budget, setBudget] = useState(goal?.tokenBudget != null ? formatCount(goal.tokenBudget) : '');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const objectiveId = useId();
  const budgetId = useId();

  const submit = async () => {
    const parsed = parseBudget(budget);
    if (!parsed.ok) {
      setError(parsed.message);
      return;
    }
    setSaving(true);
    const outcome = await save(threadId, { objective, tokenBudget: parsed.value });
    setSaving(false);
    if (outcome.ok) closeEditor();
    else setError(outcome.message);
  };

  return (
    <form
      className="goal-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <div className="goal-form-head">
        <h2 className="goal-form-title">Thread goal</h2>
        {goal && (
          <span className="status-pill" data-status={goal.status} data-testid="goal-status">
            {goalStatusLabel(goal.status)}
          </span>
        )}
      </div>
      <p className="goal-form-help">
        The agent keeps this in mind on every turn. With a budget, it stops once the thread has used that many tokens.
      </p>
      {goal?.status === 'budgetLimited' && (
        <p className="callout callout-warning" data-testid="goal-budget-limited">
          The agent stopped: this goal used {formatCount(goal.tokensUsed)} of its {formatCount(goal.tokenBudget ?? 0)}{' '}
          tokens. Raise the budget below and send a message to continue, or clear the goal.
        </p>
      )}
      <label className="field-label" htmlFor={objectiveId}>
        Objective
      </label>
      <textarea
        id={objectiveId}
        className="field-input goal-objective"
        data-testid="goal-objective"
        rows={3}
        maxLength={4000}
        placeholder="e.g. Make the login test pass reliably, without changing the app’s behaviour"
        value={objective}
        onChange={(event) => {
          setObjective(event.target.value);
          setError(null);
        }}
      />
      <label className="field-label" htmlFor={budgetId}>
        Token budget <span className="field-optional">optional</span>
      </label>
      <input
        id={budgetId}
        className="field-input"
        data-testid="goal-budget"
        data-autofocus={goal?.status === 'budgetLimited' || undefined}
        inputMode="numeric"
        placeholder="No limit (e.g. 200k)"
        value={budget}
        onChange={(event) => {
          setBudget(event.target.value);
          setError(null);
        }}
      />
      {goal && (
        <div className="goal-usage" data-testid="goal-usage">
          <div className="goal-usage-line">
            <span>{goal.tokenBudget === null ? `${formatCount(goal.tokensUsed)} tokens used` : `${formatCount(goal.tokensUsed)} of ${formatCount(goal.tokenBudget)} tokens used`}</span>
            {goal.timeUsedSeconds > 0 && <span>{Math.max(1, Math.round(goal.timeUsedSeconds / 60))} min of work</span>}
          </div>
          {goal.tokenBudget !== null && (
            <div className="meter" data-full={goal.status === 'budgetLimited' || undefined}>
              <div className="meter-fill" style={{ width: `${goalProgress(goal) * 100}%` }} />
            </div>
          )}
        </div>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <div className="goal-form-actions">
        {goal && (
          <>
            <button type="button" className="button-ghost button-danger-text" data-testid="goal-clear" onClick={() => void clear(threadId).then(closeEditor)}>
              <Trash2 size={13} strokeWidth={2} aria-hidden="true" />
              Clear
            </button>
            {(goal.status === 'active' || goal.status === 'paused') && (
              <button
                type="button"
                className="button-ghost"
                onClick={() => void setStatus(threadId, goal.status === 'active' ? 'paused' : 'active')}
              >
                {goal.status === 'active' ? <Pause size={13} strokeWidth={2} aria-hidden="true" /> : <Play size={13} strokeWidth={2} aria-hidden="true" />}
                {goal.status === 'active' ? 'Pause' : 'Resume'}
              </button>
            )}
          </>
        )}
        <span className="spacer" />
        <button type="submit" className="button button-primary button-small" data-testid="goal-save" disabled={saving}>
          {goal ? 'Save goal' : 'Set goal'}
        </button>
      </div>
    </form>
  );
}

/** Above the composer when the goal's budget stopped the agent: what happened and the two ways on. */
export function GoalBanner({ threadId }: { readonly threadId: string }) {
  const goal = useGoalStore((s) => s.goals[threadId]);
  const openEditor = useGoalStore((s) => s.openEditor);
  const clear = useGoalStore((s) => s.clear);
  if (goal?.status !== 'budgetLimited') return null;
  return (
    <div className="goal-banner" data-testid="goal-banner" role="status">
      <Target size={15} strokeWidth={2} className="goal-banner-icon" aria-hidden="true" />
      <p className="goal-banner-text">
        <strong>Goal budget reached.</strong> The agent used {formatCount(goal.tokensUsed)} of {formatCount(goal.tokenBudget ?? 0)} tokens
        and stopped. Raise the budget to let it continue, or clear the goal.
      </p>
      <button type="button" className="button button-secondary button-small" onClick={() => openEditor(threadId)}>
        Raise budget
      </button>
      <button type="button" className="button-ghost" onClick={() => void clear(threadId)}>
        Clear goal
      </button>
    </div>
  );
}
