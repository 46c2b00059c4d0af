/**
 * The Electron shell: one window, one runtime (restartable), the IPC carrier
 * between them, and what keeps Wheelhouse with its jobs when the window is
 * closed: the tray, native notifications, the quit question. Every decision
 * lives in the pure modules next to this file; this one only wires Electron
 * to them.
 */
// First: V8's young generation is held small before anything else allocates (young-generation.ts).
import '../host/young-generation.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  app,
  BrowserWindow,
  dialog,
  Menu,
  nativeImage,
  Notification,
  powerMonitor,
  protocol,
  session,
  shell,
  Tray,
  type Session,
  type WebContents,
} from 'electron';
import { DEFAULT_NOTIFICATION_PREFERENCES, RpcError, type DesktopOpenTarget } from '../../shared/protocol/index.js';
import type { DesktopHandlers } from '../host/start-runtime.js';
import type { CarrierRuntime } from '../host/carrier-runtime.js';
import { appMenuTemplate } from './app-menu.js';
import { appLayout, desktopHome } from './app-paths.js';
import { APP_SCHEME_PRIVILEGES, serveAppRequest } from './app-protocol.js';
import { APP_ENTRY_URL, APP_SCHEME } from './app-url.js';
import { startAutoUpdates, updatePolicy, type AppUpdater } from './auto-update.js';
import { DesktopActivity } from './desktop-activity.js';
import { openDesktopServices, pauseAllJobs, type DesktopServices } from './desktop-services.js';
import { IpcCarrier, listenToWindow } from './ipc-carrier.js';
import { HIDDEN_ARG, loginItemFor } from './login-item.js';
import { explainStartupError, findBetterSqliteBinding } from './native-binding.js';
import { NativeNotifier } from './native-notifier.js';
import { closeDecision, QuitFlow } from './quit-flow.js';
import { RuntimeLifecycle } from './runtime-lifecycle.js';
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
import { TrayController } from './tray-controller.js';
import { trayView, type TrayAction, type TrayIcon } from './tray-view.js';
import { mainWindowOptions } from './window-options.js';

const logError = (message: string, error: unknown): void => console.error(`wheelhouse: ${message}:`, error);

app.enableSandbox();
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }]);

// A second launch hands over to the first (which shows its window) and ends.
if (app.requestSingleInstanceLock()) startApp();
else app.quit();

function startApp(): void {
  const layout = appLayout(app.getAppPath());
  const platform = process.platform;
  const nativeBinding = findBetterSqliteBinding({
    isPackaged: app.isPackaged,
    appPath: app.getAppPath(),
    resourcesPath: process.resourcesPath,
    platform,
    arch: process.arch,
  });
  const home = desktopHome(app.getPath('userData'));
  // Started at login: the tray only, until the person opens the window.
  const startHidden = process.argv.includes(HIDDEN_ARG) || (platform === 'darwin' && app.getLoginItemSettings().wasOpenedAsHidden);
  let window: BrowserWindow | null = null;
  let carrier: IpcCarrier | null = null;
  /** A quit from a signal or the system shutting down never asks about jobs (they are kept). */
  let quitAsked = true;
  let toldAboutTray = false;
  /** What to show once a window listens (a notification or menu item chosen while none did). */
  let pendingOpen: DesktopOpenTarget | null = null;

  const runtimeNow = (): CarrierRuntime | null => lifecycle.running?.runtime.current() ?? null;

  const loginItem = loginItemFor({
    platform,
    isPackaged: app.isPackaged,
    app,
    executable: process.env['APPIMAGE'] ?? process.execPath,
    configHome: process.env['XDG_CONFIG_HOME'] || path.join(os.homedir(), '.config'),
  });

  const desktop: DesktopHandlers = {
    'desktop/state/read': () => {
      const open = pendingOpen;
      pendingOpen = null;
      return { runtime: lifecycle.state, openAtLogin: loginItem.read(), open };
    },
    'desktop/openAtLogin/set': ({ openAtLogin }) => {
      const now = loginItem.write(openAtLogin);
      if (now === null) throw RpcError.because('desktop.loginItemUnsupported', 'This system offers no way for Wheelhouse to open at login.');
      return { openAtLogin: now };
    },
    'desktop/runtime/restart': () => {
      void restartRuntime();
      return {};
    },
  };

  const notifier = new NativeNotifier({
    isSupported: () => Notification.isSupported(),
    create: (options) => new Notification({ ...options, actions: [...options.actions], icon: layout.appIcon }),
    actionsShown: platform === 'darwin',
    windowFocused: () => window !== null && !window.isDestroyed() && window.isVisible() && window.isFocused(),
    preferences: () => runtimeNow()?.config.notificationPreferences() ?? DEFAULT_NOTIFICATION_PREFERENCES,
    open: (target) => showTarget(target),
    answer: (requestId, decision) => {
      try {
        runtimeNow()?.approvals.answer(requestId, decision);
      } catch (error) {
        logError('could not answer from the notification', error); // answered elsewhere meanwhile
      }
    },
  });

  const activity = new DesktopActivity({
    onNotice: (notice) => notifier.notify(notice),
    onWithdrawn: (tag) => notifier.withdraw(tag),
    onCounts: () => refreshTray(),
    originName: (pending) => {
      try {
        const record = runtimeNow()?.threads.require(pending.params.threadId).record;
        return record?.name ?? null;
      } catch {
        return null; // a job's own approval names no thread
      }
    },
  });

  const lifecycle: RuntimeLifecycle<DesktopServices> = new RuntimeLifecycle<DesktopServices>({
    open: () =>
      openDesktopServices({
        runtime: { home, nativeBinding, logError, secretStore: (envKeyFor) => safeStorageSecretStore(home, envKeyFor) },
        desktop,
        activity,
        logError,
      }),
    ready: (services) => services.runtime.ready,
    close: (services, jobs) => services.close(jobs),
    describe: (error) => explainStartupError(error, nativeBinding, app.isPackaged),
  });
  lifecycle.onChange((runtime) => {
    lifecycle.running?.host.broadcast('desktop/runtime/changed', { runtime });
    if (runtime.state === 'failed') logError('the runtime could not start', runtime.reason);
    refreshTray();
  });

  const quitFlow = new QuitFlow({
    runtime: () => (lifecycle.running ? { runningJobCount: () => activity.counts.runningJobs, shutdown: (jobs) => lifecycle.shutdown(jobs) } : null),
    ask: async (question) => {
      const parent = window && !window.isDestroyed() && window.isVisible() ? window : null;
      const options = { ...question, buttons: [...question.buttons] };
      return (await (parent ? dialog.showMessageBox(parent, options) : dialog.showMessageBox(options))).response;
    },
    quit: () => app.quit(),
    logError,
  });

  const tray = new TrayController({
    createTray: (icon) => {
      const created = new Tray(trayImage(icon));
      return {
        setImage: (next) => created.setImage(trayImage(next)),
        setToolTip: (text) => created.setToolTip(text),
        setTitle: (text) => created.setTitle(text),
        setContextMenu: (template) => created.setContextMenu(Menu.buildFromTemplate(template)),
        onClick: (listener) => created.on('click', listener),
        destroy: () => created.destroy(),
      };
    },
    setBadgeCount: (count) => app.setBadgeCount(count),
    act: (action) => trayAction(action),
  });
  const refreshTray = () => {
    if (app.isReady()) tray.show(trayView(activity.counts, lifecycle.state));
  };

  /** macOS takes a monochrome template image (it adapts to the menu bar); elsewhere a coloured icon with a dot for activity. */
  function trayImage(icon: TrayIcon) {
    const file = platform === 'darwin' ? 'trayTemplate.png' : `tray-${icon}.png`;
    const image = nativeImage.createFromPath(path.join(layout.trayIcons, file));
    if (platform === 'darwin') image.setTemplateImage(true);
    return image;
  }

  function trayAction(action: TrayAction): void {
    switch (action) {
      case 'open':
        showWindow();
        return;
      case 'jobs':
        showTarget({ view: 'jobs' });
        return;
      case 'approvals':
        showTarget({ view: 'approvals' });
        return;
      case 'pauseAll': {
        const runtime = runtimeNow();
        if (runtime) void pauseAllJobs(runtime, logError);
        return;
      }
      case 'quit':
        app.quit();
        return;
      default:
        return action satisfies never;
    }
  }

  function showWindow(): BrowserWindow {
    if (!window || window.isDestroyed()) window = openWindow();
    else {
      if (window.isMinimized()) window.restore();
      window.show();
      window.focus();
    }
    return window;
  }

  /** Shows the window with `target` in it: told at once to a listening window, else kept for its first state read. */
  function showTarget(target: DesktopOpenTarget): void {
    const reached = window && !window.isDestroyed() ? (lifecycle.running?.host.broadcast('desktop/open', { target }) ?? 0) : 0;
    pendingOpen = reached > 0 ? null : target;
    showWindow();
  }

  async function restartRuntime(): Promise<void> {
    const services = await lifecycle.restart();
    if (!services) return;
    carrier?.replaceHost(services.host);
    // A fresh page on the fresh runtime: every store loads again, nothing stale is left on screen.
    if (window && !window.isDestroyed()) window.webContents.reload();
  }

  function openWindow(): BrowserWindow {
    const created = new BrowserWindow({ ...mainWindowOptions(layout.preload, { devTools: devToolsEnabled(app) }), icon: layout.appIcon });
    const id = created.webContents.id;
    const end = () => carrier?.end(id);
    created.webContents.on('did-start-navigation', (details) => {
      if (details.isMainFrame && !details.isSameDocument) end();
    });
    created.webContents.on('render-process-gone', end);
    created.webContents.once('destroyed', end);
    listenToWindow(
      () => carrier,
      created.webContents,
      (reason) => console.warn(`wheelhouse: dropped an IPC message (${reason})`),
    );
    created.once('ready-to-show', () => created.show());
    // Closing the window while jobs run or approvals wait keeps Wheelhouse working in the tray.
    created.on('close', (event) => {
      if (closeDecision({ quitting: quitFlow.quitting, counts: activity.counts }) === 'close') return;
      event.preventDefault();
      created.hide();
      tellAboutTrayOnce();
    });
    created.on('closed', () => {
      if (window === created) window = null;
    });
    created.loadURL(APP_ENTRY_URL).catch((error: unknown) => logError('could not load the app page', error));
    return created;
  }

  function tellAboutTrayOnce(): void {
    if (toldAboutTray || !Notification.isSupported()) return;
    toldAboutTray = true;
    const { runningJobs, waitingApprovals } = activity.counts;
    const what = runningJobs > 0 ? `${runningJobs === 1 ? 'A job is' : `${runningJobs} jobs are`} still running` : 'Approvals are waiting for you';
    const where = platform === 'darwin' ? 'menu bar' : 'tray';
    const notification = new Notification({
      title: 'Wheelhouse is still working',
      body: `${what}${waitingApprovals > 0 && runningJobs > 0 ? ', and approvals are waiting' : ''}. Open it again from the ${where} icon; quit from there too.`,
      icon: layout.appIcon,
    });
    notification.on('click', () => showWindow());
    notification.show();
  }

  app.on('second-instance', () => showWindow());
  app.on('web-contents-created', (_event, contents) => hardenContents(contents));
  app.on('window-all-closed', () => {
    // macOS apps stay open without windows; elsewhere a closed window (nothing running) means quit.
    if (platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (app.isReady()) showWindow();
  });
  app.on('before-quit', (event) => {
    if (quitFlow.request({ interactive: quitAsked })) event.preventDefault();
  });
  app.on('will-quit', () => tray.destroy());
  // A terminal's Ctrl-C, a forwarded SIGTERM or the system shutting down quit without a question (jobs are kept).
  const quitQuietly = () => {
    quitAsked = false;
    app.quit();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, quitQuietly);

  app
    .whenReady()
    .then(() => {
      secureSession(session.defaultSession, layout.rendererRoot);
      powerMonitor.on('shutdown', quitQuietly);
      Menu.setApplicationMenu(
        Menu.buildFromTemplate(appMenuTemplate(platform, { open: (target) => showTarget(target), quit: () => app.quit() }, { devTools: devToolsEnabled(app) })),
      );
      // The window is created and starts loading first; the runtime's modules and SQLite open after it,
      // in this process while the renderer process starts (its first requests wait for the runtime).
      const services = lifecycle.start();
      carrier = new IpcCarrier(services.host, () => (window && !window.isDestroyed() ? window.webContents.id : null), logError);
      refreshTray();
      if (!startHidden) window = openWindow();
      startUpdates();
    })
    .catch((error: unknown) => {
      dialog.showErrorBox('Wheelhouse could not start', error instanceof Error ? error.message : String(error));
      void lifecycle.shutdown('keep').finally(() => app.exit(1));
    });
}

/** Looks for updates in packaged builds that carry a feed; says why not otherwise. */
function startUpdates(): void {
  const policy = updatePolicy({
    isPackaged: app.isPackaged,
    feedConfigured: app.isPackaged && fs.existsSync(path.join(process.resourcesPath, 'app-update.yml')),
    env: process.env,
  });
  if (!policy.enabled) {
    console.info(`wheelhouse: automatic updates are off: ${policy.reason}`);
    return;
  }
  import('electron-updater')
    .then(({ autoUpdater }) => startAutoUpdates(autoUpdater as AppUpdater, { logError }))
    .catch((error: unknown) => logError('could not start the updater', error));
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
