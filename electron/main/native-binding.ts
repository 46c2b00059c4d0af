import fs from 'node:fs';
import path from 'node:path';
import { HomeInUseError } from '../runtime/home-lock.js';

/**
 * Electron-ABI builds of native modules. node_modules keeps the Node builds
 * (so `npm test` works); scripts/prepare-electron-native.mjs builds a copy for
 * Electron under dist-electron/native/<platform>-<arch>/, and electron-builder
 * ships that binding as resources/native/better_sqlite3.node. These paths and
 * the script's must agree (native-binding.test.ts checks it).
 */
export function electronNativeRoot(appPath: string): string {
  return path.join(appPath, 'dist-electron', 'native');
}

/** The development build of better-sqlite3's binding for this platform and arch. */
export function devBetterSqliteBinding(nativeRoot: string, platform: string, arch: string): string {
  return path.join(nativeRoot, `${platform}-${arch}`, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
}

/** The binding inside a packaged app. */
export function packagedBetterSqliteBinding(resourcesPath: string): string {
  return path.join(resourcesPath, 'native', 'better_sqlite3.node');
}

/** What the lookup needs to know about the running app. */
export interface NativeBindingHost {
  readonly isPackaged: boolean;
  readonly appPath: string;
  readonly resourcesPath: string;
  readonly platform: string;
  readonly arch: string;
}

/** The better-sqlite3 binding to hand to the runtime, when one exists. */
export function findBetterSqliteBinding(
  host: NativeBindingHost,
  exists: (file: string) => boolean = fs.existsSync,
): string | undefined {
  const candidate = host.isPackaged
    ? packagedBetterSqliteBinding(host.resourcesPath)
    : devBetterSqliteBinding(electronNativeRoot(host.appPath), host.platform, host.arch);
  return exists(candidate) ? candidate : undefined;
}

/** A message for the user when the runtime could not start, with what to do about native-module trouble. */
export function explainStartupError(error: unknown, binding: string | undefined, isPackaged: boolean): string {
  if (error instanceof HomeInUseError) {
    const other = error.pid === process.pid ? 'Another Wheelhouse window' : `Another Wheelhouse (process ${error.pid})`;
    return `${other} is using Wheelhouse's data, so this one cannot open it. Close the other one (it may have been started from a terminal, as “wheelhouse serve”), then restart Wheelhouse.`;
  }
  const message = error instanceof Error ? error.message : String(error);
  const fix = isPackaged
    ? 'Reinstall Wheelhouse.'
    : 'Run `npm start` (it prepares native modules) or `node scripts/prepare-electron-native.mjs`.';
  if (/NODE_MODULE_VERSION|compiled against a different Node\.js version/i.test(message)) {
    return `The database module${binding ? ` at ${binding}` : ''} was built for a different Electron or Node version. ${fix}\n\n${message}`;
  }
  if (binding === undefined && /bindings file|better_sqlite3\.node|Cannot find module/i.test(message)) {
    return `The database module has not been built for Electron. ${fix}\n\n${message}`;
  }
  if (/better_sqlite3\.node|Cannot find module/i.test(message)) {
    return `The database module could not be loaded. ${fix}\n\n${message}`;
  }
  return `Wheelhouse could not start its runtime: ${message}`;
}
