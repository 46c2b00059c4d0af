import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { TrayController, type TrayHandle } from './tray-controller.js';
import { trayView, type TrayAction, type TrayIcon } from './tray-view.js';

const running = { state: 'running' } as const;

/** Labels of the menu as the person sees it (disabled items in brackets). */
function labels(template: readonly MenuItemConstructorOptions[]): string[] {
  return template.map((item) => (item.type === 'separator' ? '—' : item.enabled === false ? `[${item.label}]` : String(item.label)));
}

describe('the tray', () => {
  it('says nothing is running when idle, with a plain icon and no badge', () => {
    const view = trayView({ runningJobs: 0, waitingApprovals: 0 }, running);
    expect(view).toMatchObject({ tooltip: 'Wheelhouse — No jobs running', title: '', icon: 'idle', badgeCount: 0 });
  });

  it('counts running jobs and waiting approvals in its badge, tooltip and menu', () => {
    const view = trayView({ runningJobs: 2, waitingApprovals: 1 }, running);
    expect(view).toMatchObject({ tooltip: 'Wheelhouse — 2 jobs running — 1 approval waiting for you', icon: 'attention', badgeCount: 3, title: '1!' });
    const menu = view.menu.map((item) => (item.kind === 'separator' ? '—' : item.label));
    expect(menu).toEqual(['Open Wheelhouse', '—', '2 jobs running…', '1 approval waiting for you…', 'Pause all jobs', '—', 'Quit Wheelhouse']);
    expect(trayView({ runningJobs: 1, waitingApprovals: 0 }, running)).toMatchObject({ icon: 'busy', title: '1' });
  });

  it('offers only opening and quitting when the runtime could not start', () => {
    const view = trayView({ runningJobs: 0, waitingApprovals: 0 }, { state: 'failed', reason: 'locked' });
    expect(view.menu.filter((item) => item.kind === 'action').map((item) => item.kind === 'action' && item.action)).toEqual(['open', 'quit']);
  });

  it('updates only what changed, and its items act', () => {
    const calls: string[] = [];
    let menu: MenuItemConstructorOptions[] = [];
    let click: () => void = () => undefined;
    const acted: TrayAction[] = [];
    const badges: number[] = [];
    const handle: TrayHandle = {
      setImage: (icon: TrayIcon) => calls.push(`image ${icon}`),
      setToolTip: (text) => calls.push(`tooltip ${text}`),
      setTitle: (text) => calls.push(`title ${text}`),
      setContextMenu: (template) => {
        calls.push('menu');
        menu = template;
      },
      onClick: (listener) => (click = listener),
      destroy: () => calls.push('destroy'),
    };
    const controller = new TrayController({
      createTray: (icon) => {
        calls.push(`create ${icon}`);
        return handle;
      },
      setBadgeCount: (count) => badges.push(count) > 0,
      act: (action) => acted.push(action),
    });
    controller.show(trayView({ runningJobs: 0, waitingApprovals: 0 }, running));
    controller.show(trayView({ runningJobs: 1, waitingApprovals: 0 }, running));
    calls.length = 0;
    controller.show(trayView({ runningJobs: 1, waitingApprovals: 0 }, running));
    expect(calls).toEqual([]);
    expect(labels(menu)).toEqual(['Open Wheelhouse', '—', '1 job running…', 'Pause all jobs', '—', 'Quit Wheelhouse']);
    menu.find((item) => item.label === 'Pause all jobs')?.click?.({} as never, undefined, {} as never);
    click();
    expect(acted).toEqual(['pauseAll', 'open']);
    expect(badges).toEqual([0, 1]);
    controller.destroy();
    expect(calls).toEqual(['destroy']);
    expect(badges.at(-1)).toBe(0);
  });
});
