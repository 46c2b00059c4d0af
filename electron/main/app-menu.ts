import type { MenuItemConstructorOptions } from 'electron';
import type { DesktopOpenTarget } from '../../shared/protocol/index.js';

export interface AppMenuActions {
  /** Brings the window forward and shows the target. */
  readonly open: (target: DesktopOpenTarget) => void;
  /** Quits through the quit question (running jobs: keep or stop). */
  readonly quit: () => void;
}

/**
 * The keys of the app's own commands. On Linux and Windows the plain Ctrl
 * letters belong to the terminal (Ctrl+N is the shell's "next line", Ctrl+J
 * a newline), so those take Shift; macOS has Cmd for the app.
 */
export function shortcuts(platform: NodeJS.Platform) {
  const mac = platform === 'darwin';
  return {
    newThread: mac ? 'Cmd+N' : 'Ctrl+Shift+N',
    settings: mac ? 'Cmd+,' : 'Ctrl+,',
    jobs: mac ? 'Cmd+J' : 'Ctrl+Shift+J',
    approvals: mac ? 'Cmd+Shift+A' : 'Ctrl+Shift+A',
    quit: mac ? 'Cmd+Q' : 'Ctrl+Q',
  } as const;
}

/**
 * The application menu: the usual Edit, View and Window menus (their roles
 * make copy, paste, zoom and full screen work), and the app's own commands
 * with shortcuts: new thread, Settings, Jobs, Approvals. DevTools and reload
 * only where DevTools are allowed (development builds).
 */
export function appMenuTemplate(platform: NodeJS.Platform, actions: AppMenuActions, options: { readonly devTools: boolean }): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const keys = shortcuts(platform);
  const settings: MenuItemConstructorOptions = { label: mac ? 'Settings…' : 'Settings', accelerator: keys.settings, click: () => actions.open({ view: 'settings' }) };
  const quit: MenuItemConstructorOptions = { label: 'Quit Wheelhouse', accelerator: keys.quit, click: () => actions.quit() };
  const appMenu: MenuItemConstructorOptions[] = mac
    ? [
        {
          label: 'Wheelhouse',
          submenu: [
            { role: 'about' },
            { type: 'separator' },
            settings,
            { type: 'separator' },
            { role: 'services' },
            { type: 'separator' },
            { role: 'hide' },
            { role: 'hideOthers' },
            { role: 'unhide' },
            { type: 'separator' },
            quit,
          ],
        },
      ]
    : [];
  const file: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      { label: 'New Thread', accelerator: keys.newThread, click: () => actions.open({ view: 'newThread' }) },
      { type: 'separator' },
      ...(mac ? [] : [settings, { type: 'separator' } as const]),
      { role: 'close', label: 'Close Window' },
      ...(mac ? [] : [quit]),
    ],
  };
  const edit: MenuItemConstructorOptions = {
    label: 'Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      ...(mac ? [{ role: 'pasteAndMatchStyle' } as const] : []),
      { role: 'delete' },
      { role: 'selectAll' },
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      { label: 'Jobs', accelerator: keys.jobs, click: () => actions.open({ view: 'jobs' }) },
      { label: 'Approvals', accelerator: keys.approvals, click: () => actions.open({ view: 'approvals' }) },
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
      ...(options.devTools ? [{ type: 'separator' } as const, { role: 'reload' } as const, { role: 'toggleDevTools' } as const] : []),
    ],
  };
  const window: MenuItemConstructorOptions = {
    label: 'Window',
    submenu: mac ? [{ role: 'minimize' }, { role: 'zoom' }, { type: 'separator' }, { role: 'front' }] : [{ role: 'minimize' }],
  };
  return [...appMenu, file, edit, view, window];
}
