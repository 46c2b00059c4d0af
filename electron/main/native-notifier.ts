import { noticeRoute, type Notice, type NoticeRoute } from '../../shared/notices.js';
import type { DesktopOpenTarget, NotificationPreferences } from '../../shared/protocol/index.js';

/** One action button of a notification (macOS shows them; other systems only the click). */
export interface NativeNotificationAction {
  readonly type: 'button';
  readonly text: string;
}

export interface NativeNotificationOptions {
  readonly title: string;
  readonly body: string;
  readonly actions: readonly NativeNotificationAction[];
  /** Linux: approvals stay until answered; finished jobs fade as usual. */
  readonly timeoutType: 'default' | 'never';
}

/** The slice of Electron's Notification the notifier uses. */
export interface NativeNotification {
  show(): void;
  close(): void;
  on(event: 'click', listener: () => void): unknown;
  on(event: 'action', listener: (details: { readonly actionIndex: number }) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
}

export interface NativeNotifierParts {
  /** Whether this system shows notifications at all (Electron's Notification.isSupported()). */
  readonly isSupported: () => boolean;
  readonly create: (options: NativeNotificationOptions) => NativeNotification;
  /** Whether the system shows action buttons (macOS). */
  readonly actionsShown: boolean;
  /** The window is on screen and has focus (then the window's own toasts speak instead). */
  readonly windowFocused: () => boolean;
  readonly preferences: () => NotificationPreferences;
  /** Brings the window forward and shows the target. */
  readonly open: (target: DesktopOpenTarget) => void;
  /** Answers an approval from its notification's button. */
  readonly answer: (requestId: string, decision: 'accept' | 'decline') => void;
}

type ActionId = 'open' | 'approve' | 'deny';

/**
 * The desktop app's native notifications, shown from the main process so they
 * arrive while the window is closed to the tray as well. Each notice becomes at
 * most one notification (a repeat of its tag replaces it); an approval's
 * notification offers Approve only where the notice says that is safe, and
 * goes away when the approval is answered anywhere.
 */
export class NativeNotifier {
  /** Shown notifications by tag: kept referenced (or their click handlers are lost) and closable. */
  private readonly shown = new Map<string, NativeNotification>();

  constructor(private readonly parts: NativeNotifierParts) {}

  /** Shows the notice if it should go to the desktop; returns where it went. */
  notify(notice: Notice): NoticeRoute {
    const route = noticeRoute(notice, { preferences: this.parts.preferences(), windowFocused: this.parts.windowFocused(), showing: false });
    if (route !== 'desktop' || !this.parts.isSupported()) return route === 'desktop' ? 'none' : route;
    this.withdraw(notice.tag);
    const actions = this.actionsOf(notice);
    const notification = this.parts.create({
      title: notice.title,
      body: this.parts.actionsShown || notice.approval === null ? notice.body : `${notice.body}\nOpen Wheelhouse to answer.`,
      actions: actions.map((action) => ({ type: 'button', text: ACTION_LABELS[action] })),
      timeoutType: notice.approval === null ? 'default' : 'never',
    });
    const forget = () => {
      if (this.shown.get(notice.tag) === notification) this.shown.delete(notice.tag);
    };
    notification.on('click', () => {
      forget();
      this.parts.open(notice.open);
    });
    notification.on('action', ({ actionIndex }) => {
      forget();
      this.act(notice, actions[actionIndex]);
    });
    notification.on('close', forget);
    this.shown.set(notice.tag, notification);
    notification.show();
    return 'desktop';
  }

  /** Takes a notification away (its approval was answered, or it is stale). */
  withdraw(tag: string): void {
    const notification = this.shown.get(tag);
    if (!notification) return;
    this.shown.delete(tag);
    notification.close();
  }

  /** Notifications on screen now (by tag). */
  get showing(): readonly string[] {
    return [...this.shown.keys()];
  }

  private actionsOf(notice: Notice): ActionId[] {
    if (!this.parts.actionsShown) return [];
    if (notice.approval === null) return ['open'];
    return notice.approval.canApprove ? ['approve', 'deny', 'open'] : ['deny', 'open'];
  }

  private act(notice: Notice, action: ActionId | undefined): void {
    switch (action) {
      case 'approve':
      case 'deny':
        if (notice.approval) this.parts.answer(notice.approval.requestId, action === 'approve' ? 'accept' : 'decline');
        return;
      case 'open':
      case undefined:
        this.parts.open(notice.open);
        return;
      default:
        return action satisfies never;
    }
  }
}

const ACTION_LABELS: Readonly<Record<ActionId, string>> = { open: 'Open', approve: 'Approve', deny: 'Deny' };
