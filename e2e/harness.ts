import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron, chromium, type Browser, type ElectronApplication, type Page } from 'playwright-core';
import { expectNoRunsLeft } from '../test-support/detached-runs.js';
import { startRuntimeProcess } from './runtime-process.js';

/** Where the specs run: the browser host (`wheelhouse serve` + Chromium) or the Electron app. */
export type E2eTarget = 'browser' | 'electron';

/** One running Wheelhouse with a window to drive. */
export interface WheelhouseApp {
  readonly target: E2eTarget;
  /** The runtime's home folder (fresh for each launch): where a spec checks what was written. */
  readonly home: string;
  readonly page: Page;
  /** Console errors, page errors and CSP violations seen in any window; a clean run has none. */
  readonly errors: readonly string[];
  /**
   * Opens a second, independent client window on the same runtime; null on
   * Electron, whose main process trusts its one app window only.
   */
  readonly openSecondClient: (() => Promise<Page>) | null;
  close(): Promise<void>;
}

/** The repository root (the folder holding bin/ and dist/). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** The target named by WHEELHOUSE_E2E_TARGET (default browser); anything else is an error, not a silent default. */
export function e2eTarget(): E2eTarget {
  const value = process.env['WHEELHOUSE_E2E_TARGET'] ?? 'browser';
  if (value === 'browser' || value === 'electron') return value;
  throw new Error(`WHEELHOUSE_E2E_TARGET must be "browser" or "electron", not "${value}"`);
}

/** Starts Wheelhouse on the chosen target with a fresh, empty home and returns its first window. */
export async function launchWheelhouse(): Promise<WheelhouseApp> {
  const target = e2eTarget();
  switch (target) {
    case 'browser':
      return launchBrowserHost();
    case 'electron':
      return launchElectron();
    default:
      throw new Error(`unknown target: ${target satisfies never}`);
  }
}

/** Launches Debian's Chromium headless, or fails saying how to install it. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium is not installed at ${executablePath}. Install it with \`apt-get install -y chromium\` ` +
        '(run `apt-get update` first), or point CHROMIUM_PATH at a Chromium binary.',
    );
  }
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}

/**
 * Opens `url` in a new context of `browser`: its own window and storage, so
 * it is an independent client and never a throttled background tab.
 */
export async function openClientPage(browser: Browser, url: string, errors: string[]): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  watchErrors(page, errors);
  await page.goto(url);
  return page;
}

async function launchBrowserHost(): Promise<WheelhouseApp> {
  requireBuilt('dist/node/cli.js', 'dist/renderer/index.html');
  const home = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-'));
  const errors: string[] = [];
  let browser: Browser | undefined;
  try {
    const runtime = await startRuntimeProcess(repoRoot, home);
    try {
      // launch() gives every browser its own throwaway profile (a fresh user-data-dir).
      const launched = await launchChromium();
      browser = launched;
      const page = await openClientPage(launched, runtime.url, errors);
      return {
        target: 'browser',
        home,
        page,
        errors,
        openSecondClient: () => openClientPage(launched, runtime.url, errors),
        close: async () => {
          await launched.close();
          await runtime.stop();
          try {
            expectNoRunsLeft(home);
          } finally {
            await rm(home, { recursive: true, force: true });
          }
        },
      };
    } catch (error) {
      await browser?.close();
      await runtime.stop();
      throw error;
    }
  } catch (error) {
    await rm(home, { recursive: true, force: true });
    throw error;
  }
}

async function launchElectron(): Promise<WheelhouseApp> {
  requireBuilt('dist/electron/main.cjs', 'dist/renderer/index.html');
  const home = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-'));
  const errors: string[] = [];
  let app: ElectronApplication;
  try {
    app = await _electron.launch({
      args: ['dist/electron/main.cjs'],
      cwd: repoRoot,
      env: { ...stringEnv(process.env), WHEELHOUSE_HOME: home },
    });
  } catch (error) {
    await rm(home, { recursive: true, force: true });
    throw new Error(
      `Electron did not start (is its binary installed? \`node node_modules/electron/install.js\` needs the internet): ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  const page = await app.firstWindow();
  watchErrors(page, errors);
  return {
    target: 'electron',
    home,
    page,
    errors,
    openSecondClient: null,
    close: async () => {
      await app.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** Fails with the build command when an artifact the target needs is missing. */
export function requireBuilt(...files: string[]): void {
  const missing = files.filter((file) => !existsSync(path.join(repoRoot, file)));
  if (missing.length > 0) {
    throw new Error(`Wheelhouse is not built (missing ${missing.join(', ')}). Run \`node scripts/build.mjs\` first.`);
  }
}

function watchErrors(page: Page, errors: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
