// The layering rules (which code may import what) and a few type rules, held by
// lint rather than by tests that scan source text. `npm run lint`; `npm test` runs it.
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';
import { layersRule } from './scripts/layers/layer-rule.mjs';

const nodeBuiltins = [...new Set(builtinModules.flatMap((name) => [name, `node:${name}`]))];
const SOURCES = ['**/*.{ts,tsx,mts,cts,js,mjs}'];
const TESTS = ['**/*.test.{ts,tsx}'];

/** Raw IPC on a webContents (`webContents.ipc`): only the carrier listens there. */
const rawIpcSyntax = ['MemberExpression[property.name="ipc"][object.name=/[Cc]ontents$/]', 'MemberExpression[property.name="ipc"][object.property.name=/[Cc]ontents$/]'].map(
  (selector) => ({ selector, message: 'Raw IPC belongs in electron/main/ipc-carrier.ts.' }),
);

/** Import restrictions for one layer, covering static imports, re-exports, `import x = require()` and import(). */
function restrictImports({ paths = [], patterns = [] }) {
  const dynamic = [
    ...paths.map((p) => `^${p.name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
    ...patterns.map((p) => p.regex),
  ];
  return {
    '@typescript-eslint/no-restricted-imports': ['error', { paths, patterns }],
    'no-restricted-syntax': [
      'error',
      ...rawIpcSyntax,
      ...dynamic.map((regex) => ({
        // esquery's regex literal cannot hold a slash, even escaped: match any character there.
        selector: `ImportExpression[source.value=/${regex.replaceAll('/', '.')}/]`,
        message: 'This layer may not import this module (see eslint.config.js).',
      })),
    ],
  };
}

const electronPackage = { name: 'electron', message: 'Only electron/main and electron/preload may use Electron.' };
const noNode = nodeBuiltins.map((name) => ({ name, message: 'Browser-side and shared code must not need Node.' }));
const nativeModules = ['better-sqlite3', 'node-pty', '@napi-rs/keyring'].map((name) => ({
  name,
  message: 'Native modules belong to the main process.',
}));
const react = ['react', 'react-dom'].map((name) => ({ name, message: 'shared/ holds the contract only, no React.' }));
const intoElectronFolder = {
  regex: '^(\\.\\./)+electron/',
  message: 'The renderer talks to the runtime over the protocol only.',
};
const outOfShared = {
  regex: '^(\\.\\./)+(electron|renderer|test-support|e2e|bench|scripts|node_modules)(/|$)',
  message: 'shared/ must be self-contained.',
};
// Below the runtime: config, secrets and the stores never import the core, so there are no cycles.
const intoRuntime = { regex: '^(\\.\\./)+runtime/', message: 'This layer sits below the runtime core.' };
const intoConfig = { regex: '^(\\.\\./)+config/', message: 'Secrets and file helpers sit below config.' };
const intoElectronShell = {
  regex: '^(\\.\\./)+main/',
  message: 'The Electron-free layers never reach the Electron shell (electron/main).',
};

/**
 * THE LAYER TABLE: for each layer (a folder of production code; tests are outside the layers,
 * see scripts/layers/folders.mjs), the layers it may import. `spawns`: it may import the modules
 * that start processes (child_process, node-pty); only the supervisor does. Read it bottom-up:
 * shared/ is the contract; the store, model clients, secrets and files sit under config; the
 * core (electron/runtime and its folders) receives them; host, server and main wire it up.
 * No folder cycles (scripts/layers/check-folder-cycles.mjs, run by `npm run lint`): edges marked ↺
 * close a known one, listed in scripts/layers/known-folder-cycles.mjs.
 * A new edge is a design decision: add it here in the same change, or import something lower.
 */
const CORE = 'electron/runtime';
const LAYERS = {
  // The contract: no other layer.
  'shared/protocol': { imports: [] },
  'shared/policy': { imports: [] },
  shared: { imports: ['shared/protocol'] },

  // Below the core: plain Node parts the core receives.
  'electron/store': { imports: ['shared/protocol'] },
  'electron/files': { imports: [] },
  'electron/model': { imports: ['shared/protocol'] },
  'electron/secrets': { imports: ['electron/files', 'electron/store', 'shared/protocol'] },
  'electron/exec': { imports: ['electron/store'], spawns: true },
  // SSH hosts and Slurm clusters: ssh2 connections and sbatch/squeue on this machine for a local cluster.
  'electron/exec/remote': { imports: ['electron/exec', 'electron/files', 'electron/store'], spawns: true },
  'electron/config': { imports: ['electron/files', 'electron/model', 'electron/secrets', 'electron/store', 'shared/protocol'] },
  // MCP servers: reads their config, sends its requests through the core's outgoing sender, and
  // owns the interfaces the core fills in (e.g. how an approval ends), so it never imports the core.
  // git through the supervisor: repository state, worktrees, checkpoints.
  'electron/git': { imports: ['electron/exec'] },
  'electron/mcp': { imports: ['electron/config', 'electron/exec', 'electron/model', 'electron/store', 'shared/protocol', `${CORE}/outgoing`] },

  // The core, bottom-up. Its loose files (context, events, active turn, threads) are its floor:
  // they import none of its folders, and every folder may import them.
  [CORE]: { imports: ['electron/exec', 'electron/store', 'shared/protocol'] },
  [`${CORE}/policy`]: { imports: ['electron/files', 'shared/policy', 'shared/protocol'] },
  // Settings → Machines: what was added, its key and host keys, which connection each job's run uses.
  [`${CORE}/environments`]: { imports: ['electron/exec', 'electron/exec/remote', 'electron/files', 'electron/secrets', 'electron/store', 'shared/protocol'] },
  [`${CORE}/terminal`]: { imports: ['electron/exec', 'shared/protocol'] },
  // Projects, checkpoints and undo, separate copies: above git and config, beside the threads.
  [`${CORE}/projects`]: { imports: ['electron/config', 'electron/git', 'electron/store', 'shared/protocol', CORE] },
  // Every message to clients: notifications, server requests, their answers.
  [`${CORE}/outgoing`]: { imports: ['shared/protocol', `${CORE}/terminal`] },
  [`${CORE}/tools`]: { imports: ['electron/files', 'electron/model', 'electron/store', 'shared/protocol', `${CORE}/outgoing`] },
  [`${CORE}/approvals`]: { imports: ['electron/mcp', 'electron/store', 'shared/protocol', CORE, `${CORE}/outgoing`] },
  [`${CORE}/queue`]: { imports: ['electron/store', 'shared/protocol', CORE] },
  [`${CORE}/hooks`]: { imports: ['electron/config', 'electron/exec', 'electron/store', 'shared/protocol', CORE] },
  // The tools' runners: commands and patches ask approvals; jobs run commands.
  [`${CORE}/agent-commands`]: {
    imports: ['electron/exec', 'electron/model', 'electron/store', 'shared/protocol', CORE, `${CORE}/approvals`, `${CORE}/policy`, `${CORE}/tools`],
  },
  [`${CORE}/patch`]: {
    imports: ['electron/files', 'electron/model', 'electron/store', 'shared/protocol', CORE, `${CORE}/approvals`, `${CORE}/policy`, `${CORE}/tools`],
  },
  [`${CORE}/jobs`]: {
    imports: [
      'electron/exec', 'electron/store', 'shared', 'shared/protocol',
      CORE, `${CORE}/approvals`, `${CORE}/agent-commands`, `${CORE}/policy`, `${CORE}/tools`,
    ],
  },
  // Job templates on a clock: claims slots in the store, starts each run as a job.
  [`${CORE}/schedules`]: { imports: ['electron/store', 'shared', 'shared/protocol', CORE, `${CORE}/jobs`] },

  // A turn: offers the model every tool (the agent's tool table) and runs what it calls.
  [`${CORE}/turns`]: {
    imports: [
      'electron/mcp', 'electron/model', 'electron/store', 'shared/protocol',
      CORE, `${CORE}/agent-commands`, `${CORE}/hooks`, `${CORE}/jobs`, `${CORE}/patch`, `${CORE}/tools`,
    ],
  },

  // Codex's review/start: the target's diff from git, then a review turn.
  [`${CORE}/review`]: { imports: ['electron/git', 'shared/protocol', CORE, `${CORE}/turns`] },

  // Keeps the home within its size and age budgets (events, process and job logs, checkpoints).
  [`${CORE}/retention`]: { imports: ['electron/store', 'shared/protocol', CORE] },

  // The protocol's handlers, one module per namespace: they call the core's services.
  [`${CORE}/handlers`]: {
    imports: [
      'electron/config', 'electron/mcp', 'shared/protocol',
      CORE, `${CORE}/approvals`, `${CORE}/environments`, `${CORE}/terminal`, `${CORE}/hooks`, `${CORE}/jobs`, `${CORE}/policy`, `${CORE}/queue`,
      `${CORE}/schedules`, `${CORE}/tools`, `${CORE}/turns`, `${CORE}/projects`,
      `${CORE}/retention`, `${CORE}/review`,
    ],
  },

  // Hosts: build the core (the composition root) and serve it.
  'electron/host': {
    imports: [
      'electron/config', 'electron/exec', 'electron/exec/remote', 'electron/files', 'electron/mcp', 'electron/model', 'electron/secrets', 'electron/store', 'shared/protocol',
      CORE, `${CORE}/approvals`, `${CORE}/terminal`, `${CORE}/agent-commands`, `${CORE}/environments`, `${CORE}/handlers`, `${CORE}/hooks`, `${CORE}/jobs`,
      `${CORE}/outgoing`, `${CORE}/patch`, `${CORE}/policy`, `${CORE}/queue`, `${CORE}/schedules`, `${CORE}/tools`, `${CORE}/turns`, 'electron/git',
      `${CORE}/projects`,
      `${CORE}/retention`, `${CORE}/review`,
    ],
  },
  'electron/server': {
    imports: [
      'electron/files', 'electron/host', 'electron/mcp', 'electron/secrets', 'electron/store', 'shared/protocol',
      CORE, `${CORE}/approvals`, `${CORE}/terminal`, `${CORE}/outgoing`, `${CORE}/tools`,
    ],
  },
  // The Electron shell and its preload.
  'electron/main': { imports: ['electron/files', 'electron/host', 'electron/secrets', 'electron/server', 'shared', 'shared/protocol', CORE] },
  'electron/preload': { imports: ['shared', 'shared/protocol'] },
  // Loose files of electron/ (none today).
  electron: { imports: [] },

  // The window: talks to the runtime over the protocol only.
  'renderer/src/markdown': { imports: [] },
  'renderer/src/styles': { imports: [] },
  'renderer/src/format': { imports: ['shared', 'shared/protocol'] },
  'renderer/src/client': { imports: ['renderer/src/format', 'shared', 'shared/protocol'] },
  'renderer/src/terminal': { imports: ['renderer/src/client', 'shared/protocol'] },
  'renderer/src/stores': { imports: ['renderer/src/client', 'renderer/src/format', 'renderer/src/terminal', 'shared', 'shared/protocol'] },
  // The one place the window's client and stores are made; views take them from here.
  'renderer/src/services': { imports: ['renderer/src/client', 'renderer/src/format', 'renderer/src/stores', 'shared', 'shared/protocol'] },
  'renderer/src/views': {
    imports: ['renderer/src/client', 'renderer/src/format', 'renderer/src/markdown', 'renderer/src/services', 'renderer/src/stores', 'shared', 'shared/policy', 'shared/protocol'],
  },
  'renderer/src': {
    imports: ['renderer/src/markdown', 'renderer/src/services', 'renderer/src/styles', 'renderer/src/views', 'shared', 'shared/protocol'],
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'release/**', 'dist-electron/**', 'node_modules/**', '.wheelhouse-dev/**', 'build/**', 'coverage/**'] },
  {
    files: SOURCES,
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // Raw IPC lives only in the carrier (electron/main/ipc-carrier.ts) and the preload.
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'electron', importNames: ['ipcMain', 'ipcRenderer'], message: 'Use the IPC carrier or the preload bridge.' }] },
      ],
      'no-restricted-syntax': ['error', ...rawIpcSyntax],
      'no-restricted-properties': [
        'error',
        { property: 'ipcMain', message: 'Raw IPC belongs in electron/main/ipc-carrier.ts.' },
        { property: 'ipcRenderer', message: 'Raw IPC belongs in electron/preload.' },
      ],
    },
  },
  {
    // One table holds the layers (see LAYERS above); tests cross layers to drive real parts.
    files: ['electron/**', 'shared/**', 'renderer/src/**'],
    ignores: TESTS,
    plugins: { local: { rules: { layers: layersRule } } },
    rules: { 'local/layers': ['error', LAYERS] },
  },
  {
    files: ['electron/main/ipc-carrier.ts', 'electron/preload/**'],
    rules: { 'no-restricted-imports': 'off', 'no-restricted-properties': 'off', 'no-restricted-syntax': 'off' },
  },
  {
    // The core and everything a headless host runs: plain Node, no Electron.
    files: ['electron/{runtime,store,model,config,secrets,server,files,host,exec,mcp,git}/**'],
    rules: restrictImports({ paths: [electronPackage], patterns: [intoElectronShell] }),
  },
  {
    files: ['electron/{store,model,config,exec,git}/**'],
    ignores: TESTS,
    rules: restrictImports({ paths: [electronPackage], patterns: [intoElectronShell, intoRuntime] }),
  },
  {
    files: ['electron/{secrets,files}/**'],
    ignores: TESTS,
    rules: restrictImports({ paths: [electronPackage], patterns: [intoElectronShell, intoRuntime, intoConfig] }),
  },
  {
    files: ['renderer/**'],
    rules: restrictImports({ paths: [...noNode, ...nativeModules, electronPackage], patterns: [intoElectronFolder] }),
  },
  {
    // Renderer tests run under Node and drive a real runtime; the page code above may not.
    files: TESTS.map((glob) => `renderer/${glob}`),
    rules: { '@typescript-eslint/no-restricted-imports': 'off', 'no-restricted-syntax': ['error', ...rawIpcSyntax] },
  },
  {
    files: ['shared/**'],
    ignores: TESTS,
    rules: restrictImports({ paths: [...noNode, electronPackage, ...react], patterns: [outOfShared] }),
  },
);
