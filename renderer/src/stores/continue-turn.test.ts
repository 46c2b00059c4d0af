import { describe, expect, it } from 'vitest';
import { toTurnError, type TurnError } from '../../../shared/protocol/thread.js';
import { emptyConversation, type TurnSummary } from './conversation-model.js';
import { canContinue, newestTurnId } from './conversation-store.js';

function withTurns(...turns: Array<Pick<TurnSummary, 'id' | 'status'> & { error?: TurnError['kind'] }>) {
  const data = emptyConversation();
  for (const turn of turns) {
    data.turns.set(turn.id, {
      id: turn.id,
      status: turn.status,
      error: turn.error ? toTurnError({ kind: turn.error, message: 'why', httpStatus: null, additionalDetails: null }) : null,
      usage: null,
      model: null,
      durationMs: null,
      retrying: null,
    });
  }
  return data;
}

describe('Continue', () => {
  it('is offered when the newest turn was cut off by a restart or stopped', () => {
    // What turn recovery leaves after Wheelhouse stopped mid-turn.
    expect(canContinue(withTurns({ id: 'a', status: 'completed' }, { id: 'b', status: 'interrupted', error: 'other' }))).toBe(true);
    expect(canContinue(withTurns({ id: 'a', status: 'interrupted' }))).toBe(true);
  });

  it('is not offered for a finished, failed or out-of-budget newest turn, or an older interrupted one', () => {
    expect(canContinue(withTurns({ id: 'a', status: 'interrupted' }, { id: 'b', status: 'completed' }))).toBe(false);
    expect(canContinue(withTurns({ id: 'a', status: 'failed', error: 'unauthorized' }))).toBe(false);
    expect(canContinue(withTurns({ id: 'a', status: 'interrupted', error: 'budgetExhausted' }))).toBe(false);
    expect(canContinue(emptyConversation())).toBe(false);
    expect(newestTurnId(withTurns({ id: 'a', status: 'completed' }, { id: 'b', status: 'completed' }))).toBe('b');
  });
});
