import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appLayout, desktopHome } from './app-paths.js';

describe('app paths', () => {
  it('find the preload and renderer that scripts/build.mjs writes', () => {
    expect(appLayout('/app')).toEqual({
      preload: path.join('/app', 'dist', 'electron', 'preload.cjs'),
      rendererRoot: path.join('/app', 'dist', 'renderer'),
    });
  });

  it('keep data in the per-user app folder unless WHEELHOUSE_HOME is set', () => {
    const userData = path.resolve('/users/ann/.config/Wheelhouse');
    expect(desktopHome(userData, {})).toBe(userData);
    expect(desktopHome(userData, { WHEELHOUSE_HOME: '' })).toBe(userData);
    expect(desktopHome(userData, { WHEELHOUSE_HOME: '/data/wh' })).toBe(path.resolve('/data/wh'));
  });
});
