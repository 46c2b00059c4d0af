import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const sharedRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const forbidden = new Set(['electron', 'react', 'react-dom', ...builtinModules]);
const importPattern = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

function specifiers(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(importPattern)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

describe('shared/ stays runtime-neutral', () => {
  it('imports no Node built-in, Electron, React or DOM-only module, and nothing outside shared/', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(sharedRoot)) {
      for (const spec of specifiers(file)) {
        const name = spec.startsWith('node:') ? spec : spec.split('/')[0]!;
        const relative = path.relative(sharedRoot, file);
        if (spec.startsWith('node:') || forbidden.has(name)) violations.push(`${relative} imports ${spec}`);
        if (spec.startsWith('.') && !path.resolve(path.dirname(file), spec).startsWith(sharedRoot + path.sep)) {
          violations.push(`${relative} reaches outside shared/ with ${spec}`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('finds the protocol files it checks', () => {
    const files = sourceFiles(sharedRoot).map((f) => path.relative(sharedRoot, f));
    expect(files).toContain(path.join('protocol', 'registry.ts'));
    expect(specifiers(path.join(sharedRoot, 'protocol', 'registry.ts')).length).toBeGreaterThan(0);
  });
});
