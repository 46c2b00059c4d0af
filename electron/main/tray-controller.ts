import type { MenuItemConstructorOptions } from 'electron';
import type { TrayAction, TrayIcon, TrayMenuItem, TrayView } from './tray-view.js';

/** The slice of Electron's Tray the controller uses. */
export interface TrayHandle {
  setImage(icon: TrayIcon): void;
  setToolTip(text: string): void;
  /** macOS: text beside the menu-bar icon. */
  setTitle(text: string): void;
  setContextMenu(template: MenuItemConstructorOptions[]): void;
  onClick(listener: () => void): void;
  destroy(): void;
}

export interface TrayParts {
  readonly createTray: (icon: TrayIcon) => TrayHandle;
  /** The dock / launcher badge (Electron's app.setBadgeCount; false where the system has none). */
  readonly setBadgeCount: (count: number) => boolean;
  readonly act: (action: TrayAction) => void;
}

/** Electron menu items for the tray's menu; each action calls `act`. */
export function trayMenuTemplate(items: readonly TrayMenuItem[], act: (action: TrayAction) => void): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions => {
    switch (item.kind) {
      case 'separator':
        return { type: 'separator' };
      case 'info':
        return { label: item.label, enabled: false };
      case 'action':
        return { label: item.label, enabled: item.enabled, click: () => act(item.action) };
      default:
        return item satisfies never;
    }
  });
}

/**
 * Keeps the tray icon, its menu and the dock badge in step with a TrayView,
 * touching only what changed (a menu rebuilt for every job update would
 * close an open menu under the person's pointer on some systems).
 */
export class TrayController {
  private tray: TrayHandle | null = null;
  private shown: TrayView | null = null;

  constructor(private readonly parts: TrayParts) {}

  show(view: TrayView): void {
    const before = this.shown;
    if (!this.tray) {
      this.tray = this.parts.createTray(view.icon);
      this.tray.onClick(() => this.parts.act('open'));
    } else if (before?.icon !== view.icon) this.tray.setImage(view.icon);
    if (before?.tooltip !== view.tooltip) this.tray.setToolTip(view.tooltip);
    if (before?.title !== view.title) this.tray.setTitle(view.title);
    if (!before || JSON.stringify(before.menu) !== JSON.stringify(view.menu)) {
      this.tray.setContextMenu(trayMenuTemplate(view.menu, (action) => this.parts.act(action)));
    }
    if (before?.badgeCount !== view.badgeCount) this.parts.setBadgeCount(view.badgeCount);
    this.shown = view;
  }

  destroy(): void {
    this.tray?.destroy();
    this.tray = null;
    if (this.shown && this.shown.badgeCount !== 0) this.parts.setBadgeCount(0);
    this.shown = null;
  }
}
