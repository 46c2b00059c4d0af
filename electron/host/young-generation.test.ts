import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { killAllChildren, spawnTracked } from '../../test-support/child-process.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const probe = path.join(repoRoot, 'test-support', 'young-generation-probe.ts');

afterEach(() => killAllChildren());

/** Runs the probe in a fresh Node process: V8's heap settings are per process. */
async function youngGenerationGrowth(env: NodeJS.ProcessEnv): Promise<{ before: number; after: number }> {
  const child = spawnTracked(process.execPath, ['--import', 'tsx', probe], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`probe exited ${JSON.stringify(exit)}: ${child.stderr()}`);
  return JSON.parse(out) as { before: number; after: number };
}

describe('the host keeps V8 young generation small', () => {
  it('does not let the young generation grow however much short-lived garbage the process makes', async () => {
    const { before, after } = await youngGenerationGrowth({ WHEELHOUSE_V8_DEFAULT_HEAP: '' });
    expect(after).toBeLessThanOrEqual(before);
    expect(after).toBeLessThanOrEqual(4 * 1024 * 1024);
  }, 60_000);

  it('leaves V8 to grow it (up to 32 MB) with WHEELHOUSE_V8_DEFAULT_HEAP=1, to measure against', async () => {
    const { before, after } = await youngGenerationGrowth({ WHEELHOUSE_V8_DEFAULT_HEAP: '1' });
    expect(after).toBeGreaterThan(before);
  }, 60_000);
});
