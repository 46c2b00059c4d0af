import { describe, expect, it } from 'vitest';
import { mainWindowOptions } from './window-options.js';

describe('main window options', () => {
  it('isolate and sandbox the renderer, without Node and with web security on', () => {
    const options = mainWindowOptions('/app/dist/electron/preload.cjs');
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

  it('keep the window hidden until its first paint', () => {
    expect(mainWindowOptions('/p').show).toBe(false);
  });
});
