import { isShowing, noticeRoute, type Notice, type NoticeRoute, type ShownSubject } from '../../../shared/notices.js';
import type { DesktopOpenTarget, NotificationPreferences } from '../../../shared/protocol/index.js';

export interface NoticeCenterParts {
  /** In the desktop app its main process shows the desktop notifications; in a browser this page does. */
  readonly host: 'electron' | 'browser';
  readonly preferences: () => NotificationPreferences;
  /** What the main pane shows now. */
  readonly shown: () => ShownSubject;
  /** The window is in front with the keyboard (document.hasFocus()). */
  readonly focused: () => boolean;
  /** A note in the corner of the window, with an Open button. */
  readonly toast: (notice: Notice, open: () => void) => void;
  /** A web notification (browser only). */
  readonly desktop: (notice: Notice, open: () => void) => void;
  readonly open: (target: DesktopOpenTarget) => void;
}

/**
 * Tells the person about a notice the way the shared rules say: a toast when
 * they are in this window looking at something else, a desktop notification
 * when the window is not in front (the browser's own, here; the desktop app's
 * main process shows its native one itself), nothing when its subject is on
 * screen or its kind is turned off.
 */
export function deliverNotice(notice: Notice, parts: NoticeCenterParts): NoticeRoute {
  const route = noticeRoute(notice, {
    preferences: parts.preferences(),
    windowFocused: parts.focused(),
    showing: isShowing(notice, parts.shown()),
  });
  const open = () => parts.open(notice.open);
  if (route === 'toast') parts.toast(notice, open);
  else if (route === 'desktop' && parts.host === 'browser') parts.desktop(notice, open);
  return route;
}
