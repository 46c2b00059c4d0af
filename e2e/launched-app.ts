import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { launchWheelhouse, type WheelhouseApp } from './harness.js';
import { skipSetup, waitForConnected } from './page-actions.js';

/** What a spec gets before each test: the app, connected, and (if asked for) a fresh folder. */
export interface LaunchedApp {
  readonly app: WheelhouseApp;
  /** A fresh folder in the temp folder; '' when the spec asked for none. */
  readonly folder: string;
}

export interface LaunchedAppOptions {
  /** Put first run off with "Set up later" (default true); false leaves the window on its setup screen. */
  readonly skipSetup?: boolean;
  /** Make a fresh folder for each test whose name starts with this (none when unset). */
  readonly folderPrefix?: string;
}

/**
 * Registers the hooks most non-conversation specs share: before each test
 * the app launched on a fresh home and connected (past first run unless
 * told otherwise), with a fresh folder if the spec names one; after each
 * test both go away. `use` receives the parts before each test.
 */
export function useLaunchedApp(options: LaunchedAppOptions, use: (parts: LaunchedApp) => void): void {
  let app: WheelhouseApp | undefined;
  let folder = '';
  beforeEach(async () => {
    if (options.folderPrefix) folder = await mkdtemp(path.join(os.tmpdir(), options.folderPrefix));
    app = await launchWheelhouse();
    await waitForConnected(app.page);
    if (options.skipSetup ?? true) await skipSetup(app.page);
    use({ app, folder });
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    if (folder) await rm(folder, { recursive: true, force: true });
    folder = '';
  });
}
