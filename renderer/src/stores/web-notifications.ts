import type { Notice } from '../../../shared/notices.js';

/**
 * Desktop notifications in a browser: the web Notification API. (The desktop
 * app's notifications come from its main process instead, with buttons.)
 */

/** What the browser says about notifications for this page. */
export type WebNotificationPermission = NotificationPermission | 'unsupported';

export function webNotificationPermission(): WebNotificationPermission {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/**
 * Asks the browser for permission, once it has not been answered. Call it
 * from a click (browsers ignore a request made without one), never at load.
 */
export async function askNotificationPermission(): Promise<WebNotificationPermission> {
  if (typeof Notification === 'undefined') return 'unsupported';
  if (Notification.permission !== 'default') return Notification.permission;
  try {
    return await Notification.requestPermission();
  } catch {
    return Notification.permission;
  }
}

/** Shows a notice as a web notification (when allowed); a click brings the window forward and opens its subject. */
export function showWebNotification(notice: Notice, open: () => void): boolean {
  if (webNotificationPermission() !== 'granted') return false;
  try {
    const notification = new Notification(notice.title, { body: notice.body, tag: notice.tag });
    notification.onclick = () => {
      window.focus();
      open();
      notification.close();
    };
    return true;
  } catch {
    // Some hosts allow the permission but not the constructor (e.g. needing a service worker).
    return false;
  }
}
