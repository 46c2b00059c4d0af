// The layering rules (which code may import what) and a few type rules, held by
// lint rather than by tests that scan source text. `npm run lint`; `npm test` runs it.
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

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
