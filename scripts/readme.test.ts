import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** How deep the layout table goes: `electron/runtime/jobs/` is listed, `renderer/src/views/jobs/` is not. */
const LAYOUT_DEPTH = 3;

/** Folders of the repository (tracked, or new and not ignored) down to LAYOUT_DEPTH, as `a/b/`. */
function repositoryFolders(): string[] {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean)
    // A file deleted in the work tree but not yet from the index leaves no folder behind.
    .filter((file) => fs.existsSync(path.join(root, file)));
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.split('/').slice(0, -1);
    for (let depth = 1; depth <= Math.min(parts.length, LAYOUT_DEPTH); depth += 1) folders.add(`${parts.slice(0, depth).join('/')}/`);
  }
  return [...folders].sort();
}

/** The folders the README's Layout table names, one row each. */
function layoutFolders(): string[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith('Layout\n'));
  if (!section) throw new Error('README has no "## Layout" section');
  return section
    .split('\n')
    .map((line) => /^\| `([^`]+\/)` \|/.exec(line)?.[1])
    .filter((folder): folder is string => folder !== undefined)
    .sort();
}

describe('README', () => {
  it('lists every folder of the tree in its layout, and no folder that does not exist', () => {
    expect(layoutFolders()).toEqual(repositoryFolders());
  });

  it('stays short: details live in docs/', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
  });

  it('links only to docs that exist', () => {
    const links = [...readme.matchAll(/\]\((docs\/[^)#]+)/g)].map((match) => match[1] ?? '');
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((link) => !fs.existsSync(path.join(root, link)))).toEqual([]);
  });

  it('gives the two commands, and CI runs exactly the test command', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm install && npm test');
    const ci = fs.readFileSync(path.join(root, '.ci', 'run'), 'utf8');
    const commands = ci.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
    expect(commands.at(-1)?.trim()).toBe('npm install && npm test');
  });
});
