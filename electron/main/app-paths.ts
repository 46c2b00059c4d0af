import path from 'node:path';
import { resolveHome } from '../runtime/home.js';

/** Where the built app's parts live, relative to the app folder (the project root, or app.asar when packaged). */
export function appLayout(appPath: string) {
  return {
    preload: path.join(appPath, 'dist', 'electron', 'preload.cjs'),
    rendererRoot: path.join(appPath, 'dist', 'renderer'),
    /** The window and notification icon (Linux and Windows; macOS takes the bundle's). */
    appIcon: path.join(appPath, 'build', 'icons', '256x256.png'),
    /** Tray pictures (electron-builder.yml ships build/tray inside the app). */
    trayIcons: path.join(appPath, 'build', 'tray'),
  } as const;
}

/** The runtime's home: WHEELHOUSE_HOME when set (non-empty), else Electron's per-user data folder. */
export function desktopHome(userData: string, env: NodeJS.ProcessEnv = process.env): string {
  return env['WHEELHOUSE_HOME'] ? resolveHome(undefined, env) : resolveHome(userData, env);
}
