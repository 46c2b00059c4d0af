import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, expect } from 'vitest';
import type { RunningWebServer } from '../electron/server/web-server.js';
import type { TestRuntimeOptions } from '../test-support/test-runtime.js';
import { launchChromium, openClientPage, repoRoot, requireBuilt } from './harness.js';
import { InProcessRuntime } from './in-process-runtime.js';
import { skipSetup, waitForConnected } from './page-actions.js';

/** What a test undoes after it, last first. */
export type Cleanups = Array<() => Promise<void>>;

/** A list of cleanups run (in reverse) after each test of the file or describe block that calls this. */
export function useCleanups(): Cleanups {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}

/** The built renderer the in-process runtime serves. */
const staticRoot = path.join(repoRoot, 'dist/renderer');

/** A page of the browser host on a runtime in this process. */
export interface ServedPage {
  readonly home: string;
  /** The runtime the page was first served from. */
  readonly runtime: InProcessRuntime;
  readonly server: RunningWebServer;
  readonly page: Page;
  /** The page's console errors, page errors and CSP violations. */
  readonly errors: string[];
  /** A new runtime on the same home (closed after the test), not serving yet: a test may act on it before the page can reach it. */
  newRuntime(): InProcessRuntime;
  /** Serves `runtime` on the first server's port with its token: what a page sees when Wheelhouse comes back. */
  serveAgain(runtime: InProcessRuntime): Promise<RunningWebServer>;
}

export interface ServedPageOptions {
  /** Name prefix of the fresh home in the temp folder. */
  readonly homePrefix?: string;
  /** What the spec drives itself, e.g. the jobs' and schedules' clock. */
  readonly runtime?: Omit<TestRuntimeOptions, 'home'>;
  /**
   * The test stops the runtime under the page itself: it closes it, and its
   * page errors then include refused connections, the test's to judge. By
   * default the runtime closes after the test, which fails on any page error.
   */
  readonly restarts?: boolean;
}

/**
 * Starts a runtime and its web server in this process on a fresh home, opens
 * the served window in Chromium, connected and past first run, and registers
 * everything's end in `cleanups`.
 */
export async function openServedPage(cleanups: Cleanups, options: ServedPageOptions = {}): Promise<ServedPage> {
  requireBuilt('dist/renderer/index.html');
  const home = await mkdtemp(path.join(os.tmpdir(), options.homePrefix ?? 'wheelhouse-e2e-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const token = randomBytes(18).toString('base64url');
  const runtime = new InProcessRuntime(home, options.runtime);
  if (!options.restarts) cleanups.push(() => runtime.close());
  const server = await runtime.listen({ port: 0, token, staticRoot });
  const browser = await launchChromium();
  cleanups.push(() => browser.close());
  const errors: string[] = [];
  if (!options.restarts) cleanups.push(async () => expect(errors).toEqual([]));
  const page = await openClientPage(browser, server.url, errors);
  await waitForConnected(page);
  await skipSetup(page);
  return {
    home,
    runtime,
    server,
    page,
    errors,
    newRuntime: () => {
      const again = new InProcessRuntime(home, options.runtime);
      cleanups.push(() => again.close());
      return again;
    },
    serveAgain: (again) => again.listen({ port: server.port, token, staticRoot }),
  };
}
