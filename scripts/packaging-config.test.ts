import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../test-support/paths.js';

/**
 * electron-builder.yml, checked the way electron-builder itself checks it
 * (its own schema validator), plus what Wheelhouse's packages promise: the
 * targets, the icons they name, the app id, no file associations, and the
 * GitHub update feed. Building the packages needs Node 22.12+ and the network
 * (docs/packaging.md); this runs everywhere.
 */
const require = createRequire(import.meta.url);
const { load } = require('js-yaml') as { load(text: string): unknown };
const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
  validateConfiguration(config: unknown, debug: { isEnabled: boolean }): Promise<void>;
};

interface BuilderConfig {
  appId: string;
  productName: string;
  files: string[];
  fileAssociations: unknown[];
  protocols: unknown[];
  publish: { provider: string };
  directories: { buildResources: string };
  linux: { target: string[]; icon: string; maintainer: string };
  mac: { target: string[]; icon: string };
  win: { target: string; icon: string };
}

const config = load(fs.readFileSync(path.join(repoRoot, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
const resource = (name: string) => path.join(repoRoot, config.directories.buildResources, name);

describe('the packaging configuration', () => {
  it("passes electron-builder's own validation (and that validation does catch a bad option)", async () => {
    await expect(validateConfiguration(config, { isEnabled: false })).resolves.toBeUndefined();
    await expect(validateConfiguration({ ...config, linux: { ...config.linux, tragets: ['AppImage'] } }, { isEnabled: false })).rejects.toThrow(/configuration\.linux should be/);
  });

  it('builds an AppImage and a .deb on Linux and carries the macOS and Windows targets', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg', 'zip']);
    expect(config.win.target).toBe('nsis');
    expect(config.appId).toBe('dev.wheelhouse.app');
    expect(config.linux.maintainer).toBeTruthy();
  });

  it('names icons that exist and are what each system reads', () => {
    const magic = (file: string, bytes: number) => fs.readFileSync(file).subarray(0, bytes);
    expect(magic(resource(config.mac.icon), 4).toString('ascii')).toBe('icns');
    expect([...magic(resource(config.win.icon), 4)]).toEqual([0, 0, 1, 0]);
    const linuxSizes = fs.readdirSync(resource(config.linux.icon)).filter((file) => /^\d+x\d+\.png$/.test(file));
    expect(linuxSizes).toEqual(expect.arrayContaining(['16x16.png', '32x32.png', '48x48.png', '256x256.png', '512x512.png']));
    // The 1024 px master that electron-builder falls back to.
    expect(fs.readFileSync(resource('icon.png')).readUInt32BE(16)).toBe(1024);
  });

  it('ships the pictures the main process loads, opens no documents, and updates from GitHub releases', () => {
    expect(config.files).toEqual(expect.arrayContaining(['build/tray/**', 'build/icons/256x256.png']));
    expect(config.fileAssociations).toEqual([]);
    expect(config.protocols).toEqual([]);
    expect(config.publish.provider).toBe('github');
  });
});
