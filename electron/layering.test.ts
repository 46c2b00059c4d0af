import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../test-support/paths.js';

/**
 * The layering rules, checked on every import, re-export, require() and
 * dynamic import() (type-only ones too): only electron/main and
 * electron/preload touch Electron; shared/ is runtime-neutral; the renderer
 * is browser code. Specifiers come from TypeScript's own import scanner, so
 * comments and strings that merely look like imports do not count.
 */

const SOURCE = /\.(ts|tsx|mts|cts)$/;
const TEST = /\.test\.(ts|tsx|mts|cts)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist']);
const builtins = new Set(builtinModules);

/** Module specifiers one file imports, in source order. */
function importSpecifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

function sources(dir: string, options: { tests: boolean; skip?: readonly string[] }): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (SKIPPED_DIRS.has(entry.name) || options.skip?.includes(full)) return [];
      return sources(full, options);
    }
    if (!SOURCE.test(entry.name) || entry.name.endsWith('.d.ts')) return [];
    return options.tests || !TEST.test(entry.name) ? [full] : [];
  });
}

type Rule = (specifier: string, file: string) => string | undefined;

function violations(files: readonly string[], rule: Rule): string[] {
  return files.flatMap((file) =>
    importSpecifiers(fs.readFileSync(file, 'utf8')).flatMap((specifier) => {
      const broken = rule(specifier, file);
      return broken ? [`${path.relative(repoRoot, file)} imports '${specifier}': ${broken}`] : [];
    }),
  );
}

const packageName = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
const isNodeBuiltin = (specifier: string) => specifier.startsWith('node:') || builtins.has(packageName(specifier));
const isElectron = (specifier: string) => packageName(specifier) === 'electron';
const reaches = (specifier: string, file: string, dir: string) => {
  if (!specifier.startsWith('.')) return false;
  const target = path.resolve(path.dirname(file), specifier);
  return target === dir || target.startsWith(dir + path.sep);
};

const electronDir = path.join(repoRoot, 'electron');
const sharedDir = path.join(repoRoot, 'shared');
const rendererDir = path.join(repoRoot, 'renderer');

describe('layering', () => {
  it('scanner sees every import form and ignores comments and strings', () => {
    const text = [
      "// import a from 'electron'",
      "/* require('electron') */",
      "const s = \"import x from 'electron'\";",
      "import type { A } from 'type-only';",
      "import b, { c } from './b.js';",
      "import 'side-effect';",
      "export * from './re-export.js';",
      "export { d } from 'named-re-export';",
      "const e = require('required');",
      "const f = await import('dynamic');",
      "import g = require('import-equals');",
    ].join('\n');
    expect(importSpecifiers(text).sort()).toEqual(
      ['./b.js', './re-export.js', 'dynamic', 'import-equals', 'named-re-export', 'required', 'side-effect', 'type-only'].sort(),
    );
  });

  it('only electron/main and electron/preload import electron', () => {
    const files = sources(electronDir, {
      tests: true,
      skip: [path.join(electronDir, 'main'), path.join(electronDir, 'preload')],
    });
    expect(files.length).toBeGreaterThan(10);
    expect(files.some((file) => file.includes(`${path.sep}runtime${path.sep}`))).toBe(true);
    expect(violations(files, (specifier) => (isElectron(specifier) ? 'the core must run under plain Node' : undefined))).toEqual([]);
  });

  it('shared/ imports no Node built-in, Electron or React, and nothing outside shared/', () => {
    const files = sources(sharedDir, { tests: false });
    expect(files.length).toBeGreaterThan(3);
    const rule: Rule = (specifier, file) => {
      if (isNodeBuiltin(specifier)) return 'shared/ must not need Node';
      if (isElectron(specifier)) return 'shared/ must not need Electron';
      if (['react', 'react-dom'].includes(packageName(specifier))) return 'shared/ must not need React';
      if (specifier.startsWith('.') && !reaches(specifier, file, sharedDir)) return 'shared/ must be self-contained';
      return undefined;
    };
    expect(violations(files, rule)).toEqual([]);
  });

  it('the renderer imports no Node built-in, native module, Electron or main-process code', () => {
    const files = sources(rendererDir, { tests: false });
    expect(files.length).toBeGreaterThan(0);
    const rule: Rule = (specifier, file) => {
      if (isNodeBuiltin(specifier)) return 'the renderer is browser code';
      if (['better-sqlite3', 'node-pty', 'electron'].includes(packageName(specifier))) return 'main-process only';
      if (reaches(specifier, file, electronDir)) return 'the renderer talks to the runtime over the protocol only';
      return undefined;
    };
    expect(violations(files, rule)).toEqual([]);
  });

  it('the rules catch what they forbid', () => {
    const renderer = path.join(rendererDir, 'src', 'x.ts');
    expect(isNodeBuiltin('node:fs')).toBe(true);
    expect(isNodeBuiltin('fs/promises')).toBe(true);
    expect(isNodeBuiltin('zustand')).toBe(false);
    expect(isElectron('electron/main')).toBe(true);
    expect(isElectron('electron-builder')).toBe(false);
    expect(reaches('../../electron/runtime/runtime.js', renderer, electronDir)).toBe(true);
    expect(reaches('../../shared/ipc.js', renderer, electronDir)).toBe(false);
  });
});
