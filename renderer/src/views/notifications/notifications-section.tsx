import { BellOff, BellRing } from 'lucide-react';
import { useEffect, useId } from 'react';
import { DEFAULT_NOTIFICATION_PREFERENCES, type NotificationKind } from '../../../../shared/protocol/index.js';
import { host, useNotificationSettingsStore, useSetupStore } from '../../services/services.js';
import './notifications.css';

const KINDS: readonly { readonly kind: NotificationKind; readonly label: string; readonly hint: string }[] = [
  { kind: 'jobFinished', label: 'A job finishes', hint: 'Once, when it is done.' },
  { kind: 'jobFailed', label: 'A job fails', hint: 'Only when it will not try again by itself.' },
  { kind: 'approvalNeeded', label: 'Something needs your approval', hint: 'A command, a file change or a tool call the agent waits on.' },
];

/**
 * Settings → Notifications: which events Wheelhouse tells the person about,
 * saved in config.toml at once; in a browser, also the browser's permission.
 */
export function NotificationsSection({ number }: { readonly number: number }) {
  const headingId = useId();
  const preferences = useSetupStore((s) => s.config?.notifications ?? DEFAULT_NOTIFICATION_PREFERENCES);
  const saving = useNotificationSettingsStore((s) => s.saving);
  const setPreference = useNotificationSettingsStore((s) => s.setPreference);
  const chosen = useNotificationSettingsStore((s) => s.chosen);
  const settle = useNotificationSettingsStore((s) => s.settle);
  // The switch moves with the click; it follows config.toml again once the saved value comes back.
  useEffect(() => {
    if (chosen && preferences[chosen.kind] === chosen.on) settle();
  }, [chosen, preferences, settle]);
  return (
    <section className="setup-step notifications-section" aria-labelledby={headingId} data-testid="notifications-section">
      <h2 id={headingId} className="setup-step-title">
        <span className="setup-step-number" aria-hidden="true">
          {number}
        </span>
        Notifications
      </h2>
      <p className="setup-step-text">
        A desktop notification when the Wheelhouse window is not in front; a note in its corner when you are looking at something else.
        Saved at once.
      </p>
      <fieldset className="notification-kinds">
        <legend className="visually-hidden">Tell me when</legend>
        {KINDS.map(({ kind, label, hint }) => (
          <label key={kind} className="notification-kind" data-testid={`notify-${kind}`}>
            <input
              type="checkbox"
              checked={chosen?.kind === kind ? chosen.on : preferences[kind]}
              disabled={saving === kind}
              onChange={(event) => void setPreference(kind, event.target.checked)}
            />
            <span className="notification-kind-text">
              <span className="notification-kind-label">{label}</span>
              <span className="notification-kind-hint">{hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {host === 'browser' && <BrowserPermission />}
    </section>
  );
}

/** In a browser, desktop notifications need the page's permission, asked from a click. */
function BrowserPermission() {
  const permission = useNotificationSettingsStore((s) => s.permission);
  const ask = useNotificationSettingsStore((s) => s.askPermission);
  switch (permission) {
    case 'granted':
      return (
        <p className="notification-permission" data-testid="notification-permission" data-permission={permission}>
          <BellRing size={15} strokeWidth={2} aria-hidden="true" />
          This browser shows Wheelhouse’s desktop notifications.
        </p>
      );
    case 'denied':
      return (
        <p className="notification-permission" data-testid="notification-permission" data-permission={permission}>
          <BellOff size={15} strokeWidth={2} aria-hidden="true" />
          This browser blocks Wheelhouse’s desktop notifications. Allow them in the site settings (the icon left of the address), then reload.
        </p>
      );
    case 'unsupported':
      return (
        <p className="notification-permission" data-testid="notification-permission" data-permission={permission}>
          <BellOff size={15} strokeWidth={2} aria-hidden="true" />
          This browser has no desktop notifications; notes in the window still appear.
        </p>
      );
    case 'default':
      return (
        <div className="notification-permission" data-testid="notification-permission" data-permission={permission}>
          <BellRing size={15} strokeWidth={2} aria-hidden="true" />
          <span>Desktop notifications need this browser’s permission.</span>
          <button type="button" className="button button-secondary button-small" data-testid="allow-notifications" onClick={() => void ask()}>
            Allow desktop notifications
          </button>
        </div>
      );
    default:
      return permission satisfies never;
  }
}
