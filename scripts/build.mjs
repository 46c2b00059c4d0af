// Builds every artifact: the Node runtime/CLI bundle, the Electron main and
// preload bundles, and the renderer. `--if-missing` skips work already done.
import { build as esbuild } from 'esbuild';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const out = (p) => path.join(root, p);

if (args.has('--if-missing') && existsSync(out('dist/node/cli.js')) && existsSync(out('dist/renderer/index.html'))) {
  process.exit(0);
}

// `--production` (npm run dist) turns off the development checks, e.g. validating every result.
const define = args.has('--production') ? { 'process.env.NODE_ENV': '"production"' } : {};
const common = { bundle: true, sourcemap: true, logLevel: 'warning', absWorkingDir: root, define };

await esbuild({
  ...common,
  entryPoints: ['electron/server/cli.ts'],
  outfile: 'dist/node/cli.js',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
});

// Electron main and preload are CommonJS: a sandboxed preload cannot load ES modules.
if (existsSync(out('electron/main/main.ts'))) {
  await esbuild({
    ...common,
    entryPoints: ['electron/main/main.ts'],
    outfile: 'dist/electron/main.cjs',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    external: ['electron'],
  });
}
if (existsSync(out('electron/preload/preload.ts'))) {
  await esbuild({
    ...common,
    entryPoints: ['electron/preload/preload.ts'],
    outfile: 'dist/electron/preload.cjs',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['electron'],
  });
}

if (!args.has('--no-renderer') && existsSync(out('renderer/index.html'))) {
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: out('vite.config.ts'), logLevel: 'warn' });
}
