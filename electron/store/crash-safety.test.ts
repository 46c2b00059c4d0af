import path from 'node:path';
import readline from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { killAllChildren, spawnTracked } from '../../test-support/child-process.js';
import { repoRoot } from '../../test-support/paths.js';
import { threadRecord, userMessage } from '../../test-support/records.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { StateStore } from './state-store.js';

const temp = new TempDirs();
afterEach(async () => {
  await killAllChildren();
  temp.cleanup();
});

const writerScript = path.join(repoRoot, 'test-support', 'store-writer.ts');

/**
 * Runs the writer child until it has reported `commits` commits, then kills it
 * with SIGKILL (it is almost always inside a transaction at that moment).
 * Returns what it reported as committed: thread id -> item count.
 */
async function writeThenKill(file: string, firstIndex: number, commits: number): Promise<Map<string, number>> {
  const writer = spawnTracked(process.execPath, ['--import', 'tsx', writerScript, file, String(firstIndex)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const committed = new Map<string, number>();
  const lines = readline.createInterface({ input: writer.child.stdout!, crlfDelay: Infinity });
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      const [id, count] = line.split(' ');
      committed.set(id!, Number(count));
      if (committed.size === commits) {
        writer.child.kill('SIGKILL');
        resolve();
      }
    });
    void writer.exited.then((exit) => {
      if (committed.size < commits) reject(new Error(`writer exited early ${JSON.stringify(exit)}: ${writer.stderr()}`));
    });
  });
  const exit = await writer.exited;
  expect(exit.signal).toBe('SIGKILL');
  return committed;
}

/** Opens the file as the app would after a crash and checks every invariant. */
function verify(file: string, committed: ReadonlyMap<string, number>): StateStore {
  const store = StateStore.open(file);
  expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(store.db.pragma('foreign_key_check')).toEqual([]);
  const threads = store.threads.list({ archived: 'all', limit: 100_000 });
  // Everything the writer reported as committed survived the kill...
  const ids = new Set(threads.map((t) => t.id));
  for (const id of committed.keys()) expect(ids.has(id), `committed thread ${id} is missing`).toBe(true);
  // ...and every thread in the file is whole: all of its items and its checkpoint, or nothing at all.
  for (const thread of threads) {
    const expected = Number(thread.name?.replace('items:', ''));
    const items = store.items.list(thread.id);
    expect(items, `thread ${thread.id} is half-written`).toHaveLength(expected);
    expect(items.map((i) => i.id)).toEqual(Array.from({ length: expected }, (_, n) => `${thread.id}-item-${n}`));
    expect(store.checkpoints.load(thread.id)?.state).toEqual({ itemCount: expected });
  }
  return store;
}

describe('state store crash safety', () => {
  it('survives SIGKILL mid-write: no corruption, no half transaction, writable afterwards', async () => {
    const file = path.join(temp.make(), 'state.sqlite');

    const firstRun = await writeThenKill(file, 0, 150);
    verify(file, firstRun).close();

    // A second writer on the recovered file, killed again, must leave it just as sound.
    const secondRun = await writeThenKill(file, 100_000, 150);
    const store = verify(file, new Map([...firstRun, ...secondRun]));

    store.transaction(() => {
      store.threads.upsert(threadRecord('after-crash', { name: 'items:1' }));
      store.items.append('after-crash', userMessage('after-crash-item-0', 'still works'));
      store.checkpoints.save({ threadId: 'after-crash', checkpointId: 'latest', reason: 'test', state: { itemCount: 1 }, createdAtMs: 1 });
    });
    store.close();

    const reopened = verify(file, new Map([['after-crash', 1]]));
    expect(reopened.items.list('after-crash')).toHaveLength(1);
    reopened.close();
  });
});
