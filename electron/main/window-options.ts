import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * Options of the main window. The renderer gets no Node, runs sandboxed and
 * context-isolated, and sees only what the preload exposes. The window shows
 * once its first frame is painted, so it never flashes blank. DevTools open
 * only when `devTools` says so.
 */
export function mainWindowOptions(preloadPath: string, options: { readonly devTools: boolean }): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Wheelhouse',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      // Off in packaged builds (see devToolsEnabled).
      devTools: options.devTools,
    },
  };
}
