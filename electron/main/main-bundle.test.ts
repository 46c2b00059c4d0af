import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build, stop as stopEsbuild } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test-support/paths.js';

// esbuild's build API keeps a service process running until told to stop.
afterEach(() => stopEsbuild());

const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  main: string;
  dependencies: Record<string, string>;
};

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`). */
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

describe('main process bundle', () => {
  it('loads only electron, Node built-ins and production dependencies (what a packaged app ships)', async () => {
    // The same options scripts/build.mjs uses for dist/electron/main.cjs.
    const result = await build({
      entryPoints: ['electron/main/main.ts'],
      absWorkingDir: repoRoot,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      // scripts/build.mjs also bundles zod and smol-toml; the rest stays external.
      external: ['electron', 'electron-updater', 'better-sqlite3', 'node-pty', '@napi-rs/keyring', 'ws', '@modelcontextprotocol/sdk', 'ssh2'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const builtins = new Set(builtinModules);
    const external = Object.values(result.metafile.outputs).flatMap((output) =>
      output.imports.filter((i) => i.external).map((i) => i.path),
    );
    const unshipped = external.filter((specifier) => {
      if (specifier === 'electron' || specifier.startsWith('node:') || builtins.has(specifier)) return false;
      return !(packageOf(specifier) in manifest.dependencies);
    });
    expect(external).toContain('electron');
    expect(external).toContain('better-sqlite3');
    expect(external).toContain('electron-updater');
    expect(unshipped).toEqual([]);
  });

  it('is the entry point package.json names', () => {
    expect(manifest.main).toBe('dist/electron/main.cjs');
  });
});
