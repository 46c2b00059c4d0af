import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startMockModelServer, type MockModelServer } from '../test-support/mock-model/index.js';
import { launchWheelhouse, type WheelhouseApp } from './harness.js';
import { completeFirstRun, waitForConnected } from './page-actions.js';

/** What a spec gets before each test: the file's mock model, the app past first run, and its project folder. */
export interface FirstRunApp {
  readonly mock: MockModelServer;
  readonly app: WheelhouseApp;
  readonly folder: string;
}

export interface FirstRunAppOptions {
  /** Models the mock lists (default: its own). */
  readonly models?: readonly string[];
  /** Put a README.md in the project folder. */
  readonly readme?: boolean;
  /** Prefix of the project folder's name in the temp folder. */
  readonly folderPrefix?: string;
}

/**
 * Registers the hooks most conversation specs share: one mock model server
 * per file; before each test a fresh project folder and the app set up
 * through its first-run screen against the mock (its Test button's request
 * answered); after each test both go away. `use` receives the parts before
 * each test.
 */
export function useFirstRunApp(options: FirstRunAppOptions, use: (parts: FirstRunApp) => void): void {
  let mock: MockModelServer | undefined;
  let app: WheelhouseApp | undefined;
  let folder: string | undefined;
  beforeAll(async () => {
    mock = await startMockModelServer(options.models ? { models: options.models } : {});
  });
  afterAll(async () => {
    await mock?.close();
  });
  beforeEach(async () => {
    if (!mock) throw new Error('the mock model server did not start');
    folder = await mkdtemp(path.join(os.tmpdir(), options.folderPrefix ?? 'wheelhouse-e2e-project-'));
    if (options.readme) await writeFile(path.join(folder, 'README.md'), '# A project\n');
    app = await launchWheelhouse();
    await waitForConnected(app.page);
    // The Test button's request.
    mock.enqueue([{ type: 'text', text: 'ready' }, { type: 'finish' }]);
    await completeFirstRun(app.page, { baseUrl: mock.url, folder });
    use({ mock, app, folder });
  });
  afterEach(async () => {
    await app?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });
}
