import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { autostartText, execArgument, HIDDEN_ARG, loginItemFor, type LoginItemApp } from './login-item.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

/** Electron's login item settings as macOS and Windows keep them (Windows keyed by arguments). */
class FakeLoginItems implements LoginItemApp {
  readonly entries = new Map<string, boolean>();
  readonly written: unknown[] = [];
  getLoginItemSettings(options?: { args?: string[] }) {
    return { openAtLogin: this.entries.get(JSON.stringify(options?.args ?? [])) ?? false };
  }
  setLoginItemSettings(settings: { openAtLogin: boolean; openAsHidden?: boolean; args?: string[] }): void {
    this.written.push(settings);
    this.entries.set(JSON.stringify(settings.args ?? []), settings.openAtLogin);
  }
}

describe('open at login', () => {
  it('on Linux writes an autostart entry that starts Wheelhouse hidden, and removes it again', () => {
    const configHome = temp.make();
    const item = loginItemFor({ platform: 'linux', isPackaged: true, app: new FakeLoginItems(), executable: '/home/me/Apps/Wheelhouse 0.1.AppImage', configHome });
    const file = path.join(configHome, 'autostart', 'wheelhouse.desktop');
    expect(item.read()).toBe(false);
    expect(item.write(true)).toBe(true);
    expect(item.read()).toBe(true);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain(`Exec="/home/me/Apps/Wheelhouse 0.1.AppImage" ${HIDDEN_ARG}\n`);
    expect(text.startsWith('[Desktop Entry]\nType=Application\nName=Wheelhouse\n')).toBe(true);
    expect(item.write(false)).toBe(false);
    expect(fs.existsSync(file)).toBe(false);
    expect(item.read()).toBe(false);
  });

  it('on Linux reads an entry the person switched off in their desktop settings as off', () => {
    const configHome = temp.make();
    const item = loginItemFor({ platform: 'linux', isPackaged: true, app: new FakeLoginItems(), executable: '/opt/Wheelhouse/wheelhouse', configHome });
    item.write(true);
    const file = path.join(configHome, 'autostart', 'wheelhouse.desktop');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('X-GNOME-Autostart-enabled=true', 'X-GNOME-Autostart-enabled=false'));
    expect(item.read()).toBe(false);
  });

  it('on macOS opens hidden, on Windows with the hidden argument, through Electron’s login items', () => {
    const mac = new FakeLoginItems();
    const onMac = loginItemFor({ platform: 'darwin', isPackaged: true, app: mac, executable: '', configHome: '' });
    expect(onMac.write(true)).toBe(true);
    expect(mac.written).toEqual([{ openAtLogin: true, openAsHidden: true }]);
    const windows = new FakeLoginItems();
    const onWindows = loginItemFor({ platform: 'win32', isPackaged: true, app: windows, executable: '', configHome: '' });
    expect(onWindows.read()).toBe(false);
    expect(onWindows.write(true)).toBe(true);
    expect(windows.written).toEqual([{ openAtLogin: true, args: [HIDDEN_ARG] }]);
    expect(onWindows.read()).toBe(true);
  });

  it('is not offered to a development run (it would register the bare Electron binary)', () => {
    const item = loginItemFor({ platform: 'linux', isPackaged: false, app: new FakeLoginItems(), executable: '/usr/bin/electron', configHome: temp.make() });
    expect(item.read()).toBeNull();
    expect(item.write(true)).toBeNull();
  });

  it('quotes an Exec argument as the Desktop Entry specification asks', () => {
    expect(execArgument('/opt/Wheelhouse/wheelhouse')).toBe('/opt/Wheelhouse/wheelhouse');
    expect(execArgument('/tmp/100%')).toBe('/tmp/100%%');
    expect(execArgument('/a b/$x')).toBe('"/a b/\\\\$x"');
    expect(autostartText('/x')).toContain('Exec=/x --hidden\n');
  });
});
