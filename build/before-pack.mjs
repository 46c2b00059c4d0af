// electron-builder beforePack hook: builds the Electron copy of better-sqlite3
// for the architecture being packaged, which electron-builder.yml ships as
// resources/native/better_sqlite3.node (node_modules is never rebuilt in place).
import electronBuilder from 'electron-builder';
import { prepareElectronNative } from '../scripts/prepare-electron-native.mjs';

/** Architectures a per-arch native build can serve; universal macOS builds would need two merged. */
const SUPPORTED_ARCHES = new Set(['x64', 'arm64', 'ia32']);

export default async function beforePack(context) {
  const arch = electronBuilder.Arch[context.arch];
  if (!SUPPORTED_ARCHES.has(arch)) {
    throw new Error(`Wheelhouse cannot be packaged for ${arch}: its native database module is built per architecture (x64, arm64, ia32)`);
  }
  const platform = context.electronPlatformName === 'mas' ? 'darwin' : context.electronPlatformName;
  if (platform !== process.platform) {
    throw new Error(`Wheelhouse packages for ${platform} must be built on ${platform}: its native database module is built on the host`);
  }
  await prepareElectronNative({ arch });
}
