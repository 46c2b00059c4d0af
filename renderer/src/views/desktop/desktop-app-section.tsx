import { useId } from 'react';
import { useDesktopStore } from '../../services/services.js';
import '../notifications/notifications.css';

/**
 * Settings → Desktop app (only in the desktop app): open at login, and what
 * closing the window does while work goes on.
 */
export function DesktopAppSection({ number }: { readonly number: number }) {
  const headingId = useId();
  const available = useDesktopStore((s) => s.available);
  const openAtLogin = useDesktopStore((s) => s.openAtLogin);
  const setOpenAtLogin = useDesktopStore((s) => s.setOpenAtLogin);
  if (!available) return null;
  return (
    <section className="setup-step" aria-labelledby={headingId} data-testid="desktop-app-section">
      <h2 id={headingId} className="setup-step-title">
        <span className="setup-step-number" aria-hidden="true">
          {number}
        </span>
        Desktop app
      </h2>
      <p className="setup-step-text">
        Closing the window while jobs run or approvals wait keeps Wheelhouse in the tray (the menu bar on a Mac); quitting asks what to do with
        running jobs.
      </p>
      <label className="notification-kind" data-testid="open-at-login">
        <input
          type="checkbox"
          checked={openAtLogin === true}
          disabled={openAtLogin === null}
          onChange={(event) => void setOpenAtLogin(event.target.checked)}
        />
        <span className="notification-kind-text">
          <span className="notification-kind-label">Open Wheelhouse when I log in</span>
          <span className="notification-kind-hint">
            {openAtLogin === null
              ? 'Not available here: only an installed Wheelhouse can start itself at login.'
              : 'It starts in the tray, without a window, so jobs and approvals are watched from the start.'}
          </span>
        </span>
      </label>
    </section>
  );
}
