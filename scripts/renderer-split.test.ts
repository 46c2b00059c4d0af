import { build, stop as stopEsbuild, type Metafile } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../test-support/paths.js';

// esbuild's build API keeps a service process running until told to stop.
afterEach(() => stopEsbuild());

/**
 * The first screen loads only what it shows: markdown-it, highlight.js and
 * first run/Settings come in chunks loaded on demand. The import graph
 * decides that, so bundling it (esbuild, as Vite splits on the same dynamic
 * imports) shows at once if a static import pulls one back in.
 */
async function rendererGraph(): Promise<Metafile> {
  const result = await build({
    entryPoints: ['renderer/src/main.tsx'],
    absWorkingDir: repoRoot,
    bundle: true,
    splitting: true,
    format: 'esm',
    outdir: 'renderer-split-check',
    jsx: 'automatic',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return result.metafile;
}

/** Source files of the entry chunk and every chunk it imports statically. */
function initialInputs(metafile: Metafile): string[] {
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((name) => outputs[name]!.entryPoint === 'renderer/src/main.tsx');
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name) || !outputs[name]) return;
    seen.add(name);
    for (const imported of outputs[name]!.imports) if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(entry!);
  return [...seen].flatMap((name) => Object.keys(outputs[name]!.inputs));
}

describe('renderer bundle', () => {
  it('keeps markdown-it, highlight.js grammars and the setup screen out of what the first screen loads', async () => {
    const metafile = await rendererGraph();
    const initial = initialInputs(metafile);
    const everything = Object.keys(metafile.inputs);
    const lazyOnly = (pattern: RegExp) => ({
      inBundle: everything.some((input) => pattern.test(input)),
      initially: initial.filter((input) => pattern.test(input)),
    });
    expect(initial).toContain('renderer/src/views/shell/app-shell.tsx');
    expect(lazyOnly(/node_modules\/markdown-it\//)).toEqual({ inBundle: true, initially: [] });
    expect(lazyOnly(/node_modules\/highlight\.js\/es\/languages\//)).toEqual({ inBundle: true, initially: [] });
    expect(lazyOnly(/renderer\/src\/views\/setup\/setup-screen\.tsx$/)).toEqual({ inBundle: true, initially: [] });
  });
});
