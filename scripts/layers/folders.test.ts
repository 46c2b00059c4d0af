import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../test-support/paths.js';
import { cycleProblems, folderCycles, folderGraph, folderOf, importSpecifiers, type FolderGraph } from './folders.mjs';
import { KNOWN_FOLDER_CYCLES } from './known-folder-cycles.mjs';

function graphOf(edges: Record<string, readonly string[]>): FolderGraph {
  return new Map(Object.entries(edges).map(([from, tos]) => [from, new Map(tos.map((to) => [to, `${from}/a.ts → ../${to}/b.js`]))]));
}

describe('the folder-cycle check', () => {
  it('passes on the tree as it is, with only the known cycles', () => {
    expect(cycleProblems(folderGraph(repoRoot), KNOWN_FOLDER_CYCLES)).toEqual([]);
  });

  it('fails on a new cycle and names its loop with the import behind each step', () => {
    const graph = graphOf({ 'electron/jobs': ['electron/turns'], 'electron/turns': ['electron/store', 'electron/jobs'], 'electron/store': [] });
    expect(folderCycles(graph)).toEqual([['electron/jobs', 'electron/turns']]);
    const [problem, ...rest] = cycleProblems(graph, []);
    expect(rest).toEqual([]);
    expect(problem).toContain('Folder cycle: electron/jobs → electron/turns → electron/jobs');
    expect(problem).toContain('electron/turns → electron/jobs: electron/turns/a.ts → ../electron/jobs/b.js');
  });

  it('finds a long loop, and a cycle that grew past its allow-list entry', () => {
    const graph = graphOf({ a: ['b'], b: ['c'], c: ['d'], d: ['a'] });
    expect(folderCycles(graph)).toEqual([['a', 'b', 'c', 'd']]);
    expect(cycleProblems(graph, [['a', 'b', 'c', 'd']])).toEqual([]);
    expect(cycleProblems(graph, [['a', 'b']])[0]).toMatch(/^Folder cycle: a → b → c → d → a/);
  });

  it('makes the allow-list shrink with the code: an entry that shrank or went away fails', () => {
    const graph = graphOf({ a: ['b'], b: ['a'], c: ['a'] });
    expect(cycleProblems(graph, [['a', 'b', 'c']])).toEqual([
      'The known cycle [a, b, c] shrank to [a, b]: write that in scripts/layers/known-folder-cycles.mjs.',
    ]);
    expect(cycleProblems(graphOf({ a: ['b'], b: [] }), [['a', 'b']])).toEqual([
      'The known cycle [a, b] is gone: delete it from scripts/layers/known-folder-cycles.mjs.',
    ]);
  });

  it('reads every import form and places files in their layer', () => {
    const text = [
      "import { a } from '../x/a.js';",
      "import type { B } from './b.js';",
      "export { c } from '../../y/c.js';",
      "import './side-effect.js';",
      "const d = await import('../z/d.js');",
      "import e = require('../w/e.js');",
    ].join('\n');
    expect(importSpecifiers(text).sort()).toEqual(['../../y/c.js', '../w/e.js', '../x/a.js', '../z/d.js', './b.js', './side-effect.js']);
    expect(folderOf('electron/runtime/jobs/job-engine.ts')).toBe('electron/runtime/jobs');
    expect(folderOf('electron/runtime/runtime.ts')).toBe('electron/runtime');
    expect(folderOf('electron/server/http-api/routes.ts')).toBe('electron/server');
    expect(folderOf('shared/protocol/methods/job.ts')).toBe('shared/protocol');
    expect(folderOf('renderer/src/views/app.tsx')).toBe('renderer/src/views');
    expect(folderOf('test-support/paths.ts')).toBeNull();
  });
});
