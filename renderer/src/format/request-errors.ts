import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';

/** What a person can do about a failed request, shown as a button beside the sentence. */
export type ErrorAction = 'raiseBudget' | 'reconnect' | 'openSettings' | null;

/** A failed request in words a person reads: one sentence (or two) and the action that helps. */
export interface DescribedError {
  readonly message: string;
  readonly action: ErrorAction;
}

/** The message the client uses when a request is made while the link is down. */
export const NOT_CONNECTED_MESSAGE = 'Not connected to the Wheelhouse runtime';

/**
 * Maps a request error to a sentence. Typed errors the runtime sends with
 * data (the goal budget) become their own wording with an action; anything
 * else is the server's message, capitalised and ended like a sentence.
 */
export function describeRequestError(error: unknown): DescribedError {
  if (error instanceof RpcError) {
    const goal = budgetGoal(error);
    if (goal) {
      const usage = goal.tokenBudget === null ? '' : ` (${formatNumber(goal.tokensUsed)} of ${formatNumber(goal.tokenBudget)} tokens)`;
      return {
        message: `This thread’s goal has used its token budget${usage}. Raise the budget or clear the goal to continue.`,
        action: 'raiseBudget',
      };
    }
    if (error.code === ErrorCode.Internal && error.message === NOT_CONNECTED_MESSAGE) {
      return { message: 'Not connected to the runtime, so nothing was sent. Your message is kept.', action: 'reconnect' };
    }
    const folder = workingFolderProblem(error);
    if (folder) {
      const what = folder.problem === 'missing' ? 'does not exist any more' : 'is a file, not a folder';
      return { message: `The folder ${folder.path} ${what}. Choose another project folder in Settings.`, action: 'openSettings' };
    }
    if (/^thread not found: /.test(error.message)) {
      return { message: 'That thread no longer exists. It may have been deleted in another window.', action: null };
    }
  }
  const raw = error instanceof Error ? error.message : String(error);
  return { message: asSentence(raw), action: null };
}

/** "the thing failed" → "The thing failed." */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return 'Something went wrong.';
  const capitalised = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

function budgetGoal(error: RpcError): { tokensUsed: number; tokenBudget: number | null } | null {
  const data = error.data as { goal?: { status?: unknown; tokensUsed?: unknown; tokenBudget?: unknown } } | undefined;
  const goal = data?.goal;
  if (!goal || goal.status !== 'budgetLimited' || typeof goal.tokensUsed !== 'number') return null;
  return { tokensUsed: goal.tokensUsed, tokenBudget: typeof goal.tokenBudget === 'number' ? goal.tokenBudget : null };
}

function workingFolderProblem(error: RpcError): { path: string; problem: 'missing' | 'notFolder' } | null {
  const data = error.data as { field?: unknown; path?: unknown; problem?: unknown } | undefined;
  if (data?.field !== 'cwd' || typeof data.path !== 'string') return null;
  return { path: data.path, problem: data.problem === 'notFolder' ? 'notFolder' : 'missing' };
}

function formatNumber(value: number): string {
  return value.toLocaleString('en-US');
}
