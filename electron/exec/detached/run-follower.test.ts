import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test-support/temp-dir.js';
import type { DetachedRunEvent } from './detached-run.js';
import { RunFollower } from './run-follower.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

/** A run that has already ended with `log` as its output, followed from the start. */
function endedRun(name: string, log: string, listener: (event: DetachedRunEvent) => void): RunFollower {
  const runDir = temp.make(`run-${name}-`);
  const logPath = path.join(runDir, 'output.log');
  fs.writeFileSync(logPath, log);
  return new RunFollower({ runDir, logPath, fromOffset: 0, state: () => ({ state: 'ended', exit: { exitCode: 0, signal: null } }), pollMs: 60_000, listener });
}

describe('RunFollower', () => {
  it('delivers each run its own bytes when followers share one read buffer, even when a listener makes another read', async () => {
    // Larger than one read (256 KB), so each log takes several reads through the shared buffer.
    const first = Array.from({ length: 40_000 }, (_, i) => `first ${i}`).join('\n');
    const second = Array.from({ length: 40_000 }, (_, i) => `second ${i}`).join('\n');
    const received = { first: [] as Buffer[], second: [] as Buffer[] };
    let ends = 0;
    let resolveBoth!: () => void;
    const both = new Promise<void>((resolve) => (resolveBoth = resolve));
    const onEvent = (which: 'first' | 'second') => (event: DetachedRunEvent) => {
      if (event.type === 'output') {
        received[which].push(event.data);
        // While the first run's chunk is being handled, the second reads into the same buffer.
        if (which === 'first') secondFollower.poll();
      }
      if (event.type === 'end' && ++ends === 2) resolveBoth();
    };
    const secondFollower = endedRun('second', second, onEvent('second'));
    const firstFollower = endedRun('first', first, onEvent('first'));
    firstFollower.poll();
    await both;
    expect(Buffer.concat(received.first).toString('utf8')).toBe(first);
    expect(Buffer.concat(received.second).toString('utf8')).toBe(second);
    firstFollower.dispose();
    secondFollower.dispose();
  });
});
