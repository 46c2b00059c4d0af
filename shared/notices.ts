import type { DesktopOpenTarget } from './protocol/methods/desktop.js';
import type { NotificationKind, NotificationPreferences } from './protocol/methods/config.js';
import type { PendingApproval } from './protocol/methods/approvals.js';
import type { Job } from './protocol/methods/job.js';

/**
 * What deserves the person's attention, decided once for every host: the
 * desktop shell's native notifications, the browser's web notifications and
 * the window's own toasts all ask these functions. A job that finishes, a job
 * that fails for good, and a request waiting for approval are worth it; a
 * failure the job retries by itself, a job the person cancelled, and anything
 * seen again after a reload or reconnect are not.
 */

/** One thing to tell the person about. */
export interface Notice {
  readonly kind: NotificationKind;
  /** Names the event: a second notice with the same tag replaces the first (and is never shown twice). */
  readonly tag: string;
  readonly title: string;
  readonly body: string;
  /** What "Open" shows. */
  readonly open: DesktopOpenTarget;
  /** An approval's request, and whether it may be approved without opening the window. */
  readonly approval: { readonly requestId: string; readonly canApprove: boolean } | null;
}

/** Longest command a notification may approve: the whole of it must be readable there. */
export const APPROVABLE_COMMAND_CHARS = 120;

/**
 * The notice for a job's change from `before` to `after`: finished, or
 * failed with no automatic retry left. Null for everything else, and when
 * there is no `before` (a job seen for the first time has no change to tell).
 */
export function jobNotice(before: Job | undefined, after: Job): Notice | null {
  if (!before || before.id !== after.id) return null;
  const open: DesktopOpenTarget = { view: 'job', jobId: after.id };
  // A scheduled run follows its schedule's choice: failures only (its default), every run, or never.
  if (after.scheduleNotify === 'never') return null;
  if (after.status === 'completed' && before.status !== 'completed' && after.scheduleNotify !== 'failure') {
    return {
      kind: 'jobFinished',
      tag: `job-${after.id}-run-${after.runs}-completed`,
      title: `Finished: ${after.name}`,
      body: after.activeMs > 0 ? `It ran for ${durationWords(after.activeMs)}.` : 'It finished without errors.',
      open,
      approval: null,
    };
  }
  const failedForGood = (job: Job) => job.status === 'failed' && job.nextRetryAt === null;
  if (failedForGood(after) && !failedForGood(before)) {
    const tries = after.attempt + 1;
    const why = after.detail ?? (after.exitCode !== null ? `It stopped with exit code ${after.exitCode}` : 'It stopped with an error');
    return {
      kind: 'jobFailed',
      tag: `job-${after.id}-run-${after.runs}-failed`,
      title: `Failed: ${after.name}`,
      body: tries > 1 ? `${sentence(why)} It was tried ${tries} times.` : sentence(why),
      open,
      approval: null,
    };
  }
  return null;
}

/**
 * The notice for a request waiting for approval. `originName` names the job
 * or thread it comes from, when the caller knows it. Approving from outside
 * the window is offered only for a command short enough to be read whole in
 * the notification; a patch or a tool call has to be looked at first.
 */
export function approvalNotice(pending: PendingApproval, originName: string | null = null): Notice {
  const { requestId } = pending;
  const from = originName ? ` (${originName})` : '';
  switch (pending.method) {
    case 'item/commandExecution/requestApproval': {
      const { params } = pending;
      const jobId = params.itemId.startsWith('job-') ? params.itemId : null;
      const command = params.command ?? null;
      const offered = params.availableDecisions ?? null;
      const readable = command !== null && command.length <= APPROVABLE_COMMAND_CHARS && !/[\r\n]/.test(command);
      return {
        kind: 'approvalNeeded',
        tag: `approval-${requestId}`,
        title: `Approve a command?${from}`,
        body: command ?? 'A command is waiting for your approval.',
        open: jobId !== null && params.threadId === jobId ? { view: 'job', jobId } : { view: 'thread', threadId: params.threadId },
        approval: { requestId, canApprove: readable && (offered === null || offered.includes('accept')) },
      };
    }
    case 'item/fileChange/requestApproval':
      return {
        kind: 'approvalNeeded',
        tag: `approval-${requestId}`,
        title: `Approve file changes?${from}`,
        body: 'The agent wants to change files. Open it to see the changes.',
        open: { view: 'thread', threadId: pending.params.threadId },
        approval: { requestId, canApprove: false },
      };
    case 'mcpServer/elicitation/request':
      return {
        kind: 'approvalNeeded',
        tag: `approval-${requestId}`,
        title: `Approve a tool call?${from}`,
        body: `The agent wants to use the ${pending.params.serverName} connection. Open it to see what it sends.`,
        open: { view: 'thread', threadId: pending.params.threadId },
        approval: { requestId, canApprove: false },
      };
    default:
      return pending satisfies never;
  }
}

/** How a notice reaches the person, if at all. */
export type NoticeRoute = 'desktop' | 'toast' | 'none';

export interface NoticeContext {
  readonly preferences: NotificationPreferences;
  /** The window is in front and has the keyboard. */
  readonly windowFocused: boolean;
  /** Whether the window shows the notice's subject right now (its job page, its thread, the inbox for an approval). */
  readonly showing: boolean;
}

/**
 * Where a notice goes: nowhere when its kind is turned off or the person is
 * looking at its subject; a toast when they are in the window looking at
 * something else; a desktop notification when the window is not in front.
 */
export function noticeRoute(notice: Notice, context: NoticeContext): NoticeRoute {
  if (!context.preferences[notice.kind]) return 'none';
  if (!context.windowFocused) return 'desktop';
  return context.showing ? 'none' : 'toast';
}

/** What the window shows in its main pane: a thread's conversation, a job's page, the Approvals inbox, or something else (all null / false). */
export interface ShownSubject {
  readonly threadId: string | null;
  readonly jobId: string | null;
  readonly approvalsInbox: boolean;
}

/** Whether the window shows the notice's subject. */
export function isShowing(notice: Notice, shown: ShownSubject): boolean {
  if (notice.approval !== null && shown.approvalsInbox) return true;
  switch (notice.open.view) {
    case 'job':
      return shown.jobId === notice.open.jobId;
    case 'thread':
      return shown.threadId === notice.open.threadId;
    default:
      return false;
  }
}

/** "3 minutes", "1 hour 5 minutes", "40 seconds". */
export function durationWords(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 60) return plural(seconds, 'second');
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? plural(hours, 'hour') : `${plural(hours, 'hour')} ${plural(rest, 'minute')}`;
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** Capitalised and ending with a full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return trimmed;
  const capital = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
