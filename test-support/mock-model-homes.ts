import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { mockModelConfig } from './agent-commands.js';
import { killAllChildren } from './child-process.js';
import { expectNoRunsLeft } from './detached-runs.js';
import { startMockModelServer, type MockModelServer } from './mock-model/index.js';
import { TempDirs } from './temp-dir.js';

/** Homes whose model is the file's mock model server: what every carrier fixture starts from. */
export interface MockModelHomes {
  /** The file's mock model (started before its first test). */
  readonly mock: MockModelServer;
  readonly temp: TempDirs;
  /** A home whose config.toml points at the mock (plus `extraToml`), and an empty project folder. */
  makeHome(prefix: string, extraToml?: string): { home: string; project: string };
}

/**
 * Registers the hooks carrier fixtures share: one mock model per file; after
 * each test `stopHosts` (the fixture's own servers), then every child process
 * still running is killed, a detached run left in a home fails the test, and
 * the temporary folders are removed.
 */
export function useMockModelHomes(stopHosts: () => Promise<void>): MockModelHomes {
  let mock: MockModelServer | undefined;
  const temp = new TempDirs();
  const homes: string[] = [];
  beforeAll(async () => {
    mock = await startMockModelServer();
  });
  afterAll(async () => {
    await mock?.close();
  });
  afterEach(async () => {
    await stopHosts();
    await killAllChildren();
    // A detached run left behind by a test is a bug in it (it is ended first, so it cannot leak into the next test).
    try {
      for (const home of homes) expectNoRunsLeft(home);
    } finally {
      homes.length = 0;
      temp.cleanup();
    }
  });
  const started = (): MockModelServer => {
    if (!mock) throw new Error('the mock model server has not started (use it inside a test)');
    return mock;
  };
  return {
    get mock() {
      return started();
    },
    temp,
    makeHome(prefix, extraToml = '') {
      const home = temp.make(prefix);
      homes.push(home);
      const project = temp.make('wheelhouse-project-');
      fs.writeFileSync(path.join(home, 'config.toml'), mockModelConfig(started()) + extraToml);
      return { home, project };
    },
  };
}
