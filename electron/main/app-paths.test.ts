import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../test-support/paths.js';
import { appLayout, desktopHome } from './app-paths.js';

describe('app paths', () => {
  it('find the preload and renderer that scripts/build.mjs writes', () => {
    expect(appLayout('/app')).toMatchObject({
      preload: path.join('/app', 'dist', 'electron', 'preload.cjs'),
      rendererRoot: path.join('/app', 'dist', 'renderer'),
    });
  });

  it('find the window icon and every tray picture the shell asks for in the repository (shipped as build/)', () => {
    const layout = appLayout(repoRoot);
    expect(fs.existsSync(layout.appIcon)).toBe(true);
    const pictures = ['trayTemplate.png', 'trayTemplate@2x.png', ...['idle', 'busy', 'attention'].flatMap((icon) => [`tray-${icon}.png`, `tray-${icon}@2x.png`])];
    expect(pictures.filter((file) => !fs.existsSync(path.join(layout.trayIcons, file)))).toEqual([]);
  });

  it('keep data in the per-user app folder unless WHEELHOUSE_HOME is set', () => {
    const userData = path.resolve('/users/ann/.config/Wheelhouse');
    expect(desktopHome(userData, {})).toBe(userData);
    expect(desktopHome(userData, { WHEELHOUSE_HOME: '' })).toBe(userData);
    expect(desktopHome(userData, { WHEELHOUSE_HOME: '/data/wh' })).toBe(path.resolve('/data/wh'));
  });
});
