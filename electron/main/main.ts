/**
 * The Electron shell: one window, one runtime, the IPC carrier between them.
 * Every decision (what may load, navigate, open, be granted or trusted) lives
 * in the pure modules next to this file; this one only wires Electron to them.
 */
import {
  app,
  BrowserWindow,
  dialog,
  protocol,
  session,
  shell,
  type Session,
  type WebContents,
} from 'electron';
import { startRuntime, type StartingRuntime } from '../host/start-runtime.js';
import { RpcHost } from '../server/rpc-host.js';
import { appLayout, desktopHome } from './app-paths.js';
import { APP_SCHEME_PRIVILEGES, serveAppRequest } from './app-protocol.js';
import { APP_ENTRY_URL, APP_SCHEME } from './app-url.js';
import { IpcCarrier, listenToWindow } from './ipc-carrier.js';
import { explainStartupError, findBetterSqliteBinding } from './native-binding.js';
import { safeStorageSecretStore } from './safe-storage-secrets.js';
import {
  devToolsEnabled,
  enforcedResponseHeaders,
  isAllowedRequest,
  isPermissionGranted,
  navigationDecision,
  windowOpenDecision,
  type NavigationDecision,
} from './security-policy.js';
import { mainWindowOptions } from './window-options.js';

interface Services {
  /** Opens its stores while the window loads; the renderer's requests wait for them. */
  readonly runtime: StartingRuntime;
  readonly host: RpcHost;
  readonly carrier: IpcCarrier;
}

const logError = (message: string, error: unknown): void => console.error(`wheelhouse: ${message}:`, error);

app.enableSandbox();
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }]);

if (app.requestSingleInstanceLock()) startApp();
else app.quit();

function startApp(): void {
  const layout = appLayout(app.getAppPath());
  let window: BrowserWindow | null = null;
  let services: Services | null = null;

  /** Stops running turns (they are saved as interrupted), then closes the runtime. */
  const shutdown = async (): Promise<void> => {
    if (!services) return;
    const current = services;
    services = null;
    current.carrier.close();
    current.host.close();
    await current.runtime.shutdown();
  };
  const openWindow = (carrier: IpcCarrier): BrowserWindow => {
    const created = new BrowserWindow(mainWindowOptions(layout.preload, { devTools: devToolsEnabled(app) }));
    const id = created.webContents.id;
    created.webContents.on('did-start-navigation', (details) => {
      if (details.isMainFrame && !details.isSameDocument) carrier.end(id);
    });
    created.webContents.on('render-process-gone', () => carrier.end(id));
    created.webContents.once('destroyed', () => carrier.end(id));
    listenToWindow(carrier, created.webContents, (reason) => console.warn(`wheelhouse: dropped an IPC message (${reason})`));
    created.once('ready-to-show', () => created.show());
    created.on('closed', () => {
      if (window === created) window = null;
    });
    created.loadURL(APP_ENTRY_URL).catch((error: unknown) => logError('could not load the app page', error));
    return created;
  };

  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  });
  app.on('web-contents-created', (_event, contents) => hardenContents(contents));
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (services && !window) window = openWindow(services.carrier);
  });
  app.on('will-quit', (event) => {
    if (!services) return;
    // Hold the quit until running turns are saved, then quit for real.
    event.preventDefault();
    void shutdown().finally(() => app.quit());
  });
  // A terminal's Ctrl-C or a forwarded SIGTERM quits through the same path as the menu, so the runtime flushes.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());

  app
    .whenReady()
    .then(() => {
      secureSession(session.defaultSession, layout.rendererRoot);
      // The window is created and starts loading first; the runtime's modules and SQLite open after it,
      // in this process while the renderer process starts (its first requests wait for the runtime).
      const started = startServices(() => (window && !window.isDestroyed() ? window.webContents.id : null));
      services = started;
      window = openWindow(started.carrier);
      started.runtime.ready.catch((error: unknown) => {
        dialog.showErrorBox('Wheelhouse could not start', error instanceof Error ? error.message : String(error));
        void shutdown().finally(() => app.exit(1));
      });
    })
    .catch((error: unknown) => {
      dialog.showErrorBox('Wheelhouse could not start', error instanceof Error ? error.message : String(error));
      void shutdown().finally(() => app.exit(1));
    });
}

function startServices(trustedWebContentsId: () => number | null): Services {
  const nativeBinding = findBetterSqliteBinding({
    isPackaged: app.isPackaged,
    appPath: app.getAppPath(),
    resourcesPath: process.resourcesPath,
    platform: process.platform,
    arch: process.arch,
  });
  const home = desktopHome(app.getPath('userData'));
  const explain = (error: unknown) => new Error(explainStartupError(error, nativeBinding, app.isPackaged));
  let started: StartingRuntime;
  try {
    // Takes the home lock now (a home in use fails here); the stores open on the next tick.
    started = startRuntime({
      home,
      nativeBinding,
      logError,
      secretStore: (envKeyFor) => safeStorageSecretStore(home, envKeyFor),
    });
  } catch (error) {
    throw explain(error);
  }
  const runtime: StartingRuntime = { ...started, ready: started.ready.catch((error: unknown) => Promise.reject(explain(error))) };
  runtime.ready.catch(() => undefined); // reported by the caller's dialog
  const host = new RpcHost(runtime);
  return { runtime, host, carrier: new IpcCarrier(host, trustedWebContentsId, logError) };
}

/** Serves the renderer on app://, keeps remote content out and denies permissions. */
function secureSession(ses: Session, rendererRoot: string): void {
  ses.protocol.handle(APP_SCHEME, async (request) => {
    const response = await serveAppRequest({ method: request.method, url: request.url }, rendererRoot);
    return new Response(response.body, { status: response.status, headers: response.headers });
  });
  ses.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !isAllowedRequest(details.url) }));
  ses.webRequest.onHeadersReceived((details, callback) => {
    const responseHeaders = enforcedResponseHeaders(details.url, details.responseHeaders);
    callback(responseHeaders ? { responseHeaders } : {});
  });
  ses.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(isPermissionGranted(permission, details.requestingUrl)),
  );
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    isPermissionGranted(permission, requestingOrigin),
  );
  ses.setDevicePermissionHandler(() => false);
}

/** Applies the navigation, window and webview policy to every webContents the app creates. */
function hardenContents(contents: WebContents): void {
  contents.on('will-frame-navigate', (event) => {
    const decision = navigationDecision(event.url);
    if (decision.action === 'allow') return;
    event.preventDefault();
    if (event.isMainFrame) openExternally(decision);
  });
  contents.on('will-redirect', (event) => {
    if (navigationDecision(event.url).action !== 'allow') event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(windowOpenDecision(url));
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // webPreferences.devTools already refuses them; this also covers any other webContents.
  contents.on('devtools-opened', () => {
    if (!devToolsEnabled(app)) contents.closeDevTools();
  });
}

function openExternally(decision: NavigationDecision): void {
  switch (decision.action) {
    case 'allow':
    case 'deny':
      return;
    case 'open-externally':
      shell.openExternal(decision.url).catch((error: unknown) => logError(`could not open ${decision.url}`, error));
      return;
    default: {
      const unreachable: never = decision;
      throw new Error(`unknown navigation decision ${JSON.stringify(unreachable)}`);
    }
  }
}
