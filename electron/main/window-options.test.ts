import { describe, expect, it } from 'vitest';
import { devToolsEnabled } from './security-policy.js';
import { mainWindowOptions } from './window-options.js';

describe('main window options', () => {
  it('isolate and sandbox the renderer, without Node and with web security on', () => {
    const options = mainWindowOptions('/app/dist/electron/preload.cjs', { devTools: false });
    expect(options.webPreferences).toMatchObject({
      preload: '/app/dist/electron/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });

  it('open DevTools exactly when the policy allows them', () => {
    expect(mainWindowOptions('/p', { devTools: devToolsEnabled({ isPackaged: true }) }).webPreferences?.devTools).toBe(false);
    expect(mainWindowOptions('/p', { devTools: devToolsEnabled({ isPackaged: false }) }).webPreferences?.devTools).toBe(true);
  });

  it('keep the window hidden until its first paint', () => {
    expect(mainWindowOptions('/p', { devTools: true }).show).toBe(false);
  });
});
