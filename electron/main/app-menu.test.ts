import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import type { DesktopOpenTarget } from '../../shared/protocol/index.js';
import { appMenuTemplate } from './app-menu.js';

/** Every item of the menu, flattened, with the menu it is in. */
function items(template: readonly MenuItemConstructorOptions[]): (MenuItemConstructorOptions & { menu: string })[] {
  return template.flatMap((top) => (Array.isArray(top.submenu) ? top.submenu.map((item) => ({ ...item, menu: String(top.label) })) : []));
}

function setup(platform: NodeJS.Platform, devTools = false) {
  const opened: DesktopOpenTarget[] = [];
  let quits = 0;
  const template = appMenuTemplate(platform, { open: (target) => opened.push(target), quit: () => (quits += 1) }, { devTools });
  const choose = (label: string) => {
    const item = items(template).find((i) => i.label === label);
    if (!item?.click) throw new Error(`no item ${label}`);
    item.click({} as never, undefined, {} as never);
  };
  return { template, opened, choose, quits: () => quits };
}

describe('the application menu', () => {
  it('has the app commands with their shortcuts on Linux and Windows, away from the terminal’s Ctrl keys', () => {
    const { template, opened, choose, quits } = setup('linux');
    expect(template.map((menu) => menu.label)).toEqual(['File', 'Edit', 'View', 'Window']);
    const keys = Object.fromEntries(items(template).filter((i) => i.accelerator).map((i) => [i.label, i.accelerator]));
    expect(keys).toEqual({ 'New Thread': 'Ctrl+Shift+N', Settings: 'Ctrl+,', 'Quit Wheelhouse': 'Ctrl+Q', Jobs: 'Ctrl+Shift+J', Approvals: 'Ctrl+Shift+A' });
    for (const label of ['New Thread', 'Settings', 'Jobs', 'Approvals', 'Quit Wheelhouse']) choose(label);
    expect(opened).toEqual([{ view: 'newThread' }, { view: 'settings' }, { view: 'jobs' }, { view: 'approvals' }]);
    expect(quits()).toBe(1);
  });

  it('on macOS puts Settings and Quit in the app menu and uses Cmd', () => {
    const { template } = setup('darwin');
    expect(template.map((menu) => menu.label)).toEqual(['Wheelhouse', 'File', 'Edit', 'View', 'Window']);
    const app = items(template).filter((i) => i.menu === 'Wheelhouse');
    expect(app.find((i) => i.label === 'Settings…')?.accelerator).toBe('Cmd+,');
    expect(app.find((i) => i.label === 'Quit Wheelhouse')?.accelerator).toBe('Cmd+Q');
    expect(items(template).find((i) => i.label === 'New Thread')?.accelerator).toBe('Cmd+N');
  });

  it('keeps copy and paste working (their roles) and shows DevTools only in development', () => {
    const roles = (template: readonly MenuItemConstructorOptions[]) => items(template).map((i) => i.role).filter(Boolean);
    expect(roles(setup('linux').template)).toEqual(expect.arrayContaining(['copy', 'paste', 'cut', 'selectAll', 'undo', 'redo']));
    expect(roles(setup('linux').template)).not.toContain('toggleDevTools');
    expect(roles(setup('linux', true).template)).toContain('toggleDevTools');
  });
});
