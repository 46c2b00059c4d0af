import { create, type StoreApi, type UseBoundStore } from 'zustand';
import { NOTIFICATION_PREFERENCE_KEYS, type NotificationKind } from '../../../shared/protocol/index.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { showRequestError } from './toast-store.js';
import { askNotificationPermission, webNotificationPermission, type WebNotificationPermission } from './web-notifications.js';

export interface NotificationSettingsState {
  /** The kind being saved right now (its switch waits). */
  readonly saving: NotificationKind | null;
  /** What this browser allows (the desktop app's notifications need no page permission). */
  readonly permission: WebNotificationPermission;
  /** Turns a kind on or off in config.toml (`[wheelhouse.notifications]`); Settings shows it once config/changed comes back. */
  setPreference(kind: NotificationKind, on: boolean): Promise<void>;
  /** Asks the browser (from the click on "Allow"). */
  askPermission(): Promise<void>;
}

/** Settings → Notifications: which kinds notify, and the browser's permission. The preferences themselves are read with the rest of config/read. */
export function createNotificationSettingsStore(client: WheelhouseClient): UseBoundStore<StoreApi<NotificationSettingsState>> {
  return create<NotificationSettingsState>()((set) => ({
    saving: null,
    permission: webNotificationPermission(),
    setPreference: async (kind, on) => {
      set({ saving: kind });
      try {
        await client.request('config/value/write', { keyPath: NOTIFICATION_PREFERENCE_KEYS[kind], value: on });
      } catch (error) {
        showRequestError(error);
      } finally {
        set({ saving: null });
      }
    },
    askPermission: async () => set({ permission: await askNotificationPermission() }),
  }));
}
