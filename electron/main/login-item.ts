import fs from 'node:fs';
import path from 'node:path';

/** The argument a login launch carries: start in the tray, without a window. */
export const HIDDEN_ARG = '--hidden';

/** Whether Wheelhouse opens when the person logs in, and the way to change it. */
export interface LoginItem {
  /** null: this system offers no way Wheelhouse can set. */
  read(): boolean | null;
  /** Sets it; returns the state afterwards (null when unsupported). */
  write(openAtLogin: boolean): boolean | null;
}

/** The slice of Electron's app that macOS and Windows login items use. */
export interface LoginItemApp {
  getLoginItemSettings(options?: { args?: string[] }): { openAtLogin: boolean };
  setLoginItemSettings(settings: { openAtLogin: boolean; openAsHidden?: boolean; args?: string[] }): void;
}

export interface LoginItemEnvironment {
  readonly platform: NodeJS.Platform;
  /** Only a packaged app can register itself; a development run would register the bare Electron binary. */
  readonly isPackaged: boolean;
  readonly app: LoginItemApp;
  /** The program to start at login on Linux: the AppImage file when run as one, else the executable. */
  readonly executable: string;
  /** `$XDG_CONFIG_HOME`, else `~/.config`. */
  readonly configHome: string;
}

/**
 * The login item for this system: macOS and Windows through Electron's
 * login item settings; Linux through an XDG autostart entry
 * (`~/.config/autostart/wheelhouse.desktop`), which GNOME, KDE, Xfce and
 * most other desktops start at login. Unpackaged runs have none.
 */
export function loginItemFor(environment: LoginItemEnvironment): LoginItem {
  if (!environment.isPackaged) return { read: () => null, write: () => null };
  switch (environment.platform) {
    case 'darwin':
    case 'win32': {
      const { app, platform } = environment;
      // Windows keys the entry by its arguments: read with the same ones it was written with.
      const args = platform === 'win32' ? [HIDDEN_ARG] : [];
      return {
        read: () => app.getLoginItemSettings({ args }).openAtLogin,
        write: (openAtLogin) => {
          app.setLoginItemSettings({ openAtLogin, ...(platform === 'darwin' ? { openAsHidden: true } : { args }) });
          return app.getLoginItemSettings({ args }).openAtLogin;
        },
      };
    }
    case 'linux':
      return autostartEntry(path.join(environment.configHome, 'autostart', 'wheelhouse.desktop'), environment.executable);
    default:
      return { read: () => null, write: () => null };
  }
}

/** An XDG autostart entry at `file` that starts `executable` hidden. */
export function autostartEntry(file: string, executable: string): LoginItem {
  return {
    read: () => {
      try {
        const text = fs.readFileSync(file, 'utf8');
        return !/^\s*(Hidden\s*=\s*true|X-GNOME-Autostart-enabled\s*=\s*false)\s*$/m.test(text);
      } catch {
        return false;
      }
    },
    write: (openAtLogin) => {
      if (openAtLogin) {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        const temporary = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(temporary, autostartText(executable), { mode: 0o644 });
        fs.renameSync(temporary, file);
      } else fs.rmSync(file, { force: true });
      return openAtLogin;
    },
  };
}

/** The desktop entry (freedesktop.org Desktop Entry 1.5) of the autostart file. */
export function autostartText(executable: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Wheelhouse',
    'Comment=Opens Wheelhouse in the background when you log in',
    `Exec=${execArgument(executable)} ${HIDDEN_ARG}`,
    'Icon=wheelhouse',
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/**
 * One Exec argument: `%` doubled; quoted when it holds a reserved character,
 * with `"`, `` ` ``, `$` and `\` escaped inside the quotes; then every
 * backslash doubled, because the string-value escapes apply before the quoting.
 */
export function execArgument(value: string): string {
  const percent = value.replaceAll('%', '%%');
  if (!/[\s"'\\><~|&;$*?#()`]/.test(percent)) return percent;
  return `"${percent.replace(/(["`$\\])/g, '\\$1')}"`.replaceAll('\\', '\\\\');
}
