// Builds every artifact: the Node runtime/CLI bundle, the Electron main and
// preload bundles, and the renderer. `--if-missing` skips work already done.
import { build as esbuild } from 'esbuild';
import { existsSync, rmSync } from 'node:fs';
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

/**
 * Packages the runtime (CLI and Electron main) loads as they are installed: native addons, and
 * packages loaded only on first use (the OpenAI SDK at the first turn, ws for
 * `serve`, the MCP SDK when a server is configured; its stdio transport's
 * cross-spawn is CommonJS that cannot be bundled into ESM; ssh2 when a machine is first used). Everything else (zod, smol-toml) is bundled into cli.js, which
 * loads faster than resolving and reading a package's many files at start-up.
 */
const CLI_EXTERNAL = ['better-sqlite3', 'node-pty', '@napi-rs/keyring', 'ws', '@modelcontextprotocol/sdk', 'ssh2'];

/**
 * zod's `z` namespace object keeps all of its 60-odd message locales in the
 * bundle (about half of zod's bytes, parsed at every start); Wheelhouse uses
 * only English, zod's default, so the locale index is cut down to it.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`)
        ? { path: path.join(path.dirname(args.importer), '../locales/index.js'), namespace: 'zod-locales' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * The protocol's modules only declare schemas and helpers, so a bundle may leave out the ones it
 * never uses: importing one name from shared/protocol/index.ts then loads that name's module, not
 * every method's schemas (the registry is built on first use, shared/protocol/lazy-registry.ts).
 */
const protocolWithoutSideEffects = {
  name: 'protocol-without-side-effects',
  setup(build) {
    const protocolDir = path.join(root, 'shared', 'protocol') + path.sep;
    build.onResolve({ filter: /\.js$/ }, async (args) => {
      if (args.pluginData === 'protocol-resolve' || !args.resolveDir.startsWith(root)) return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'protocol-resolve' });
      if (resolved.errors.length > 0 || !resolved.path.startsWith(protocolDir)) return undefined;
      return { ...resolved, sideEffects: false };
    });
  },
};

// The commands' code: each command's module, the young-generation setting and the protocol's
// tables (loaded on first use by both bundles) are entries of their own (dist/node/<name>.js), and
// code behind a dynamic import() (model clients, keychain, web server) goes to chunks that load on
// first use; stale chunks of an earlier build are removed.
const COMMAND_ENTRIES = ['electron/server/app-server-command.ts', 'electron/server/serve-command.ts', 'electron/host/young-generation.ts', 'shared/protocol/registry.ts'];
rmSync(out('dist/node/chunks'), { recursive: true, force: true });
await esbuild({
  ...common,
  entryPoints: COMMAND_ENTRIES,
  outdir: 'dist/node',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: CLI_EXTERNAL,
  plugins: [zodEnglishOnly, protocolWithoutSideEffects],
});

/**
 * The command's entry, cli.js, is one file without chunks: it parses the arguments, and for
 * `app-server` answers `initialize`, before it imports the command's entry above. Every chunk an
 * ES module imports is a file to resolve, read, compile and link (~0.4 ms each here): split like
 * the commands, the entry loaded ten of them before its first answer. The few modules it shares
 * with the commands are in both bundles; what it hands them (the home's lock, the answered
 * request, the stop signal) is plain data or an object used through its methods.
 */
const commandsAsBuilt = {
  name: 'commands-as-built',
  setup(build) {
    const entries = new Set(COMMAND_ENTRIES.map((entry) => path.join(root, entry)));
    // Source imports name the compiled file (`./serve-command.js` for serve-command.ts).
    build.onResolve({ filter: /\.js$/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const source = path.resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      if (!entries.has(source)) return undefined;
      return { path: `./${path.basename(source, '.ts')}.js`, external: true };
    });
  },
};
await esbuild({
  ...common,
  entryPoints: ['electron/server/cli.ts'],
  outfile: 'dist/node/cli.js',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: CLI_EXTERNAL,
  plugins: [commandsAsBuilt, zodEnglishOnly, protocolWithoutSideEffects],
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
    // As for the CLI: zod and smol-toml bundled, the rest loaded as installed (lazily where the code says so);
    // electron-updater only in packaged builds that carry an update feed.
    external: ['electron', 'electron-updater', ...CLI_EXTERNAL],
    plugins: [zodEnglishOnly, protocolWithoutSideEffects],
    // V8's compile cache where Electron's Node has it (22.1+), as bin/wheelhouse.mjs does for the CLI:
    // modules the main process loads later (native addon wrappers, the OpenAI SDK) start compiled.
    banner: {
      // The bundle's own "use strict" follows the banner, so the banner must state it.
      js: "'use strict';\ntry { require('node:module').enableCompileCache?.(require('node:path').join(require('node:os').tmpdir(), 'wheelhouse-compile-cache')); } catch {}",
    },
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
