import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { DesktopOpenTarget, DesktopRuntimeState } from '../../../shared/protocol/index.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { showRequestError } from './toast-store.js';

export interface DesktopState {
  /** The window runs in the desktop app (its shell answers the desktop methods); false in a browser. */
  readonly available: boolean;
  /** How the desktop app's runtime is doing; null in a browser and until first read. */
  readonly runtime: DesktopRuntimeState | null;
  /** Whether Wheelhouse opens at login; null where the system offers no way to set it (or in a browser). */
  readonly openAtLogin: boolean | null;
  /** A restart was asked for from this window and has not finished (the window reloads when it has). */
  readonly restarting: boolean;
  setOpenAtLogin(openAtLogin: boolean): Promise<void>;
  /** Asks the shell to stop the runtime and start it again. */
  restart(): Promise<void>;
}

/**
 * The desktop app's own state and settings, through the desktop methods;
 * also what its shell asks the window to show (application menu, tray,
 * notification clicks), handed to `open`.
 */
export function createDesktopStore(
  client: WheelhouseClient,
  available: boolean,
  open: (target: DesktopOpenTarget) => void,
): UseBoundStore<StoreApi<DesktopState>> {
  const store = create<DesktopState>()((set) => ({
    available,
    runtime: null,
    openAtLogin: null,
    restarting: false,
    setOpenAtLogin: async (openAtLogin) => {
      try {
        const result = await client.request('desktop/openAtLogin/set', { openAtLogin });
        set({ openAtLogin: result.openAtLogin });
      } catch (error) {
        showRequestError(error);
      }
    },
    restart: async () => {
      set({ restarting: true });
      try {
        await client.request('desktop/runtime/restart', {});
      } catch (error) {
        set({ restarting: false });
        showRequestError(error);
      }
    },
  }));
  if (!available) return store;
  client.onReady(() => {
    client.request('desktop/state/read', {}).then(
      (state) => {
        store.setState({ runtime: state.runtime, openAtLogin: state.openAtLogin });
        if (state.open) open(state.open);
      },
      (error: unknown) => showRequestError(error),
    );
  });
  client.on('desktop/runtime/changed', ({ runtime }) =>
    store.setState((state) => ({ runtime, restarting: state.restarting && runtime.state !== 'failed' })),
  );
  client.on('desktop/open', ({ target }) => open(target));
  return store;
}
