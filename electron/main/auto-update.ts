/** Whether this run looks for updates, and why not when it does not. */
export type UpdatePolicy = { readonly enabled: true } | { readonly enabled: false; readonly reason: string };

export interface UpdatePolicyInput {
  /** Electron's app.isPackaged: development runs never update themselves. */
  readonly isPackaged: boolean;
  /** Whether the package carries its update feed (resources/app-update.yml, written by electron-builder from `publish`). */
  readonly feedConfigured: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The switch that turns updates off for one run or one machine. */
export const UPDATES_ENV = 'WHEELHOUSE_UPDATES';

/**
 * Updates run only in a packaged app whose build was given a feed (the
 * GitHub provider in electron-builder.yml, with the repository known at
 * build time), and not when `WHEELHOUSE_UPDATES=off`.
 */
export function updatePolicy(input: UpdatePolicyInput): UpdatePolicy {
  if (!input.isPackaged) return { enabled: false, reason: 'a development run does not update itself' };
  if (input.env[UPDATES_ENV] === 'off') return { enabled: false, reason: `${UPDATES_ENV}=off` };
  if (!input.feedConfigured) return { enabled: false, reason: 'this build has no update feed (no GitHub repository was known when it was packaged)' };
  return { enabled: true };
}

/** The slice of electron-updater's AppUpdater used here. */
export interface AppUpdater {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  checkForUpdatesAndNotify(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** How often a running app looks again (the first look is at start). */
export const UPDATE_CHECK_INTERVAL_MS = 6 * 60 * 60 * 1000;

/**
 * Looks for an update now and every few hours; a new version downloads in
 * the background, the system notification says so, and it installs when
 * Wheelhouse quits. Failures (offline, no release yet) are logged, never
 * shown as errors. Returns the stop.
 */
export function startAutoUpdates(
  updater: AppUpdater,
  options: {
    readonly logError: (message: string, error: unknown) => void;
    readonly every?: (callback: () => void, ms: number) => () => void;
  },
): () => void {
  updater.autoDownload = true;
  updater.autoInstallOnAppQuit = true;
  updater.on('error', (error) => options.logError('update check failed', error));
  const check = () => {
    updater.checkForUpdatesAndNotify().catch((error: unknown) => options.logError('update check failed', error));
  };
  check();
  const every =
    options.every ??
    ((callback, ms) => {
      const timer = setInterval(callback, ms);
      timer.unref();
      return () => clearInterval(timer);
    });
  return every(check, UPDATE_CHECK_INTERVAL_MS);
}
