import { describe, expect, it } from 'vitest';
import { startAutoUpdates, UPDATE_CHECK_INTERVAL_MS, updatePolicy, type AppUpdater } from './auto-update.js';

describe('automatic updates', () => {
  it('run only in a packaged app that carries a feed, unless turned off', () => {
    expect(updatePolicy({ isPackaged: true, feedConfigured: true, env: {} })).toEqual({ enabled: true });
    expect(updatePolicy({ isPackaged: false, feedConfigured: true, env: {} })).toMatchObject({ enabled: false, reason: 'a development run does not update itself' });
    expect(updatePolicy({ isPackaged: true, feedConfigured: false, env: {} })).toMatchObject({ enabled: false, reason: expect.stringContaining('no update feed') });
    expect(updatePolicy({ isPackaged: true, feedConfigured: true, env: { WHEELHOUSE_UPDATES: 'off' } })).toMatchObject({ enabled: false });
  });

  it('look at start and every few hours, download in the background and install at quit; a failed look is only logged', async () => {
    const logged: string[] = [];
    const errorListeners: ((error: Error) => void)[] = [];
    let checks = 0;
    const updater: AppUpdater = {
      autoDownload: false,
      autoInstallOnAppQuit: false,
      checkForUpdatesAndNotify: () => {
        checks += 1;
        return checks === 1 ? Promise.reject(new Error('offline')) : Promise.resolve(null);
      },
      on: (_event, listener) => errorListeners.push(listener),
    };
    let tick: () => void = () => undefined;
    let interval = 0;
    let stopped = false;
    const stop = startAutoUpdates(updater, {
      logError: (message, error) => logged.push(`${message}: ${(error as Error).message}`),
      every: (callback, ms) => {
        tick = callback;
        interval = ms;
        return () => (stopped = true);
      },
    });
    expect(updater).toMatchObject({ autoDownload: true, autoInstallOnAppQuit: true });
    expect(checks).toBe(1);
    await Promise.resolve();
    expect(logged).toEqual(['update check failed: offline']);
    expect(interval).toBe(UPDATE_CHECK_INTERVAL_MS);
    tick();
    expect(checks).toBe(2);
    errorListeners[0]!(new Error('bad signature'));
    expect(logged.at(-1)).toBe('update check failed: bad signature');
    stop();
    expect(stopped).toBe(true);
  });
});
