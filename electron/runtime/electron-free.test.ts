import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const runtimeDir = path.dirname(fileURLToPath(import.meta.url));
const importPattern = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** Every bare module reachable from `entry` through relative imports. */
function reachableModules(entries: readonly string[]): { files: Set<string>; modules: Map<string, string> } {
  const files = new Set<string>();
  const modules = new Map<string, string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(importPattern)) {
      const spec = (match[1] ?? match[2] ?? match[3])!;
      if (spec.startsWith('.')) {
        const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
        if (fs.existsSync(target)) queue.push(target);
        else if (fs.existsSync(`${target}.ts`)) queue.push(`${target}.ts`);
        else if (fs.existsSync(path.join(target, 'index.ts'))) queue.push(path.join(target, 'index.ts'));
      } else {
        modules.set(spec, path.relative(runtimeDir, file));
      }
    }
  }
  return { files, modules };
}

function runtimeSources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return runtimeSources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('the runtime core', () => {
  it('never reaches Electron through any import, so it runs under plain Node', () => {
    const { files, modules } = reachableModules(runtimeSources(runtimeDir));
    expect(files.size).toBeGreaterThan(5);
    const electron = [...modules].filter(([spec]) => spec === 'electron' || spec.startsWith('electron/'));
    expect(electron.map(([spec, from]) => `${from} imports ${spec}`)).toEqual([]);
  });
});
