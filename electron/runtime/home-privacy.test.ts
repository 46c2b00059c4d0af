import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { openDatabase } from '../store/database.js';
import type { RequestContext } from './context.js';
import type { Runtime } from '../host/runtime.js';
import { createTestRuntime } from '../../test-support/test-runtime.js';

/** The home holds conversations and settings: only its owner may read it. */
const temp = new TempDirs();
const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.shutdown();
  temp.cleanup();
});

const ctx: RequestContext = { session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() } };
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

function open(home: string): Runtime {
  const runtime = createTestRuntime({ home, defaults: { cwd: temp.make() } });
  runtimes.push(runtime);
  return runtime;
}

async function writeConfig(runtime: Runtime): Promise<void> {
  const call = runtime.dispatcher.call.bind(runtime.dispatcher) as (m: string, p: unknown, c: RequestContext) => Promise<unknown>;
  await call('config/value/write', { keyPath: 'model', value: 'deepseek-chat' }, ctx);
}

function expectPrivate(home: string): void {
  expect(modeOf(home).toString(8)).toBe('700');
  for (const name of ['state.sqlite', 'state.sqlite-wal', 'state.sqlite-shm', 'config.toml']) {
    expect({ name, mode: modeOf(path.join(home, name)).toString(8) }).toEqual({ name, mode: '600' });
  }
}

describe.runIf(process.platform !== 'win32')('home folder modes', () => {
  it('creates the home 0700 and its database, WAL and config 0600 even under a permissive umask', async () => {
    const previous = process.umask(0o022);
    try {
      const home = path.join(temp.make(), 'fresh', 'home');
      const runtime = open(home);
      await writeConfig(runtime);
      expectPrivate(home);
    } finally {
      process.umask(previous);
    }
  });

  it('tightens a home, database, WAL and config left readable by others', async () => {
    const home = temp.make();
    const db = openDatabase(path.join(home, 'state.sqlite'));
    db.pragma('wal_checkpoint(PASSIVE)');
    fs.writeFileSync(path.join(home, 'config.toml'), 'model = "deepseek-chat"\n');
    for (const name of ['state.sqlite', 'state.sqlite-wal', 'state.sqlite-shm', 'config.toml']) fs.chmodSync(path.join(home, name), 0o644);
    fs.chmodSync(home, 0o755);
    db.close();
    // Closing the last connection removes the WAL; leave loose ones behind as a crashed run would.
    for (const name of ['state.sqlite-wal', 'state.sqlite-shm']) fs.writeFileSync(path.join(home, name), '', { mode: 0o644 });
    for (const name of ['state.sqlite-wal', 'state.sqlite-shm']) fs.chmodSync(path.join(home, name), 0o644);

    open(home);
    expectPrivate(home);
  });
});
