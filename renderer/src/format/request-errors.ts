import { ErrorCode, RpcError, type ErrorReason } from '../../../shared/protocol/errors.js';

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
 * Maps a request error to a sentence. A reason from the closed union (see
 * shared/protocol/error-reasons.ts) gets its own wording and action; an error
 * without one is the server's message, capitalised and ended like a sentence.
 */
export function describeRequestError(error: unknown): DescribedError {
  if (error instanceof RpcError) {
    if (error.code === ErrorCode.Internal && error.message === NOT_CONNECTED_MESSAGE) {
      return { message: 'Not connected to the runtime, so nothing was sent. Your message is kept.', action: 'reconnect' };
    }
    const reason = error.reason;
    const described = reason === null ? null : describeReason(reason, details(error));
    if (described) return described;
  }
  const raw = error instanceof Error ? error.message : String(error);
  return { message: asSentence(raw), action: null };
}

/** What the details of an error name, read defensively (another server may send anything). */
interface Details {
  readonly path: string | null;
  readonly goal: { readonly tokensUsed: number; readonly tokenBudget: number | null } | null;
}

function details(error: RpcError): Details {
  const data = error.data as { path?: unknown; goal?: { tokensUsed?: unknown; tokenBudget?: unknown } } | undefined;
  const goal = data?.goal;
  return {
    path: typeof data?.path === 'string' ? data.path : null,
    goal:
      goal && typeof goal.tokensUsed === 'number'
        ? { tokensUsed: goal.tokensUsed, tokenBudget: typeof goal.tokenBudget === 'number' ? goal.tokenBudget : null }
        : null,
  };
}

const said = (message: string, action: ErrorAction = null): DescribedError => ({ message, action });

/**
 * One case per reason, so a new reason does not compile until it is worded
 * here. `null`: the server's own message already says it best (a client's
 * mistake, or a detail that is only in the message).
 */
function describeReason(reason: ErrorReason, { path, goal }: Details): DescribedError | null {
  switch (reason) {
    case 'goal.budgetSpent': {
      const usage = goal?.tokenBudget == null ? '' : ` (${formatNumber(goal.tokensUsed)} of ${formatNumber(goal.tokenBudget)} tokens)`;
      return said(`This thread’s goal has used its token budget${usage}. Raise the budget or clear the goal to continue.`, 'raiseBudget');
    }
    case 'cwd.notFound':
      return said(`The folder ${path ?? 'chosen'} does not exist any more. Choose another project folder in Settings.`, 'openSettings');
    case 'cwd.notFolder':
      return said(`${path ?? 'The chosen path'} is a file, not a folder. Choose another project folder in Settings.`, 'openSettings');
    case 'thread.notFound':
      return said('That thread no longer exists. It may have been deleted in another window.');
    case 'thread.archived':
      return said('That thread is archived. Unarchive it to change it.');
    case 'thread.busy':
      return said('The agent is still working in that thread. Stop the turn or wait for it to end.');
    case 'turn.notRunning':
      return said('That turn has already ended. Send your message as a new one.');
    case 'approval.notWaiting':
      return said('That request was already answered or has ended. Nothing more is needed.');
    case 'secretStorage.unavailable':
      return said('This computer offers no safe place to keep the key. Set it as an environment variable instead.', 'openSettings');
    case 'secretStorage.failed':
      return said('The key could not be saved or read. Try again, or set it as an environment variable.', 'openSettings');
    case 'runtime.unavailable':
      return said('The Wheelhouse runtime could not start. The banner above says why.');
    case 'schedule.notFound':
      return said('That schedule no longer exists. It may have been deleted in another window.');
    case 'schedule.slotStarted':
      return said('That run of the schedule has started already.');
    case 'job.notFound':
      return said('That job no longer exists. It may have been deleted in another window.');
    case 'environment.unknown':
      return said('That machine is no longer in Settings → Machines. Pick another one or add it again.');
    case 'queue.notFound':
    case 'queue.alreadyStarting':
      return said('That queued message has already started or was removed. Nothing was changed.');
    case 'queue.orderChanged':
      return said('The queue changed in another window. Try the move again.');
    case 'environment.inUse':
    case 'environment.notForThreads':
    case 'policy.forbidden':
    case 'hook.blocked':
    case 'desktop.loginItemUnsupported':
    case 'job.wrongState':
    case 'job.kindUnsupported':
    case 'job.runNotFound':
    case 'job.lineOutOfRange':
    case 'job.logUnreadable':
    case 'workspace.notFound':
    case 'workspace.notDirectory':
    case 'workspace.unreadable':
    case 'config.invalid':
    case 'config.syntax':
    case 'config.io':
    case 'config.badKeyPath':
    case 'config.providerNotFound':
    case 'rules.lineMoved':
    case 'rules.invalidRule':
    case 'rules.notRulesFile':
    case 'request.invalidParams':
    case 'desktop.only':
    case 'process.idInUse':
    case 'process.notRunning':
    case 'process.invalidSpec':
    case 'process.badCwd':
    case 'process.commandNotFound':
    case 'process.sandboxUnavailable':
    case 'process.spawnFailed':
    case 'process.logFailed':
    case 'process.shuttingDown':
    case 'process.unknownSession':
    case 'project.notFound':
    case 'changes.turnRunning':
    case 'changes.unavailable':
    case 'changes.changedSince':
    case 'git.notARepository':
    case 'git.failed':
    case 'worktree.none':
    case 'worktree.turnRunning':
    case 'worktree.notARepository':
    case 'worktree.noCommit':
    case 'worktree.baseNotCheckedOut':
    case 'worktree.checkoutBusy':
      // The message names the rule, the file, the line or the command: shown as sent.
      return null;
    default: {
      const unhandled: never = reason;
      return unhandled;
    }
  }
}

/** "the thing failed" → "The thing failed." */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return 'Something went wrong.';
  const capitalised = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

function formatNumber(value: number): string {
  return value.toLocaleString('en-US');
}
