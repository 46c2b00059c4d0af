import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { e2eTarget, launchChromium, openClientPage, repoRoot, requireBuilt } from './harness.js';
import { InProcessRuntime } from './in-process-runtime.js';
import { createThread, renameThread, rowWithTitle, skipSetup, waitForConnected, withoutNetworkRefusals } from './page-actions.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a page whose runtime restarts', () => {
  beforeEach((ctx) => {
    if (e2eTarget() === 'electron') ctx.skip('the Electron bridge never drops; only the browser host has a connection to lose');
  });

  it('shows it is reconnecting, comes back on its own, and refetches what changed meanwhile', async () => {
    requireBuilt('dist/renderer/index.html');
    const home = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-'));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    const token = randomBytes(18).toString('base64url');
    const staticRoot = path.join(repoRoot, 'dist/renderer');

    let runtime = new InProcessRuntime(home);
    const server = await runtime.listen({ port: 0, token, staticRoot });
    const browser: Browser = await launchChromium();
    cleanups.push(() => browser.close());
    const errors: string[] = [];
    const page = await openClientPage(browser, server.url, errors);
    await waitForConnected(page);
    await skipSetup(page);
    const before = await createThread(page);
    await renameThread(page, before, 'Made before the restart');

    await runtime.close();
    await page.locator('[data-testid="connection-status"][data-status="reconnecting"]').waitFor();
    expect(await page.getByTestId('new-thread').isDisabled()).toBe(true);
    // Enter while disconnected says why nothing was sent and keeps the draft.
    const composer = page.getByTestId('composer-input');
    await composer.fill('Written while away');
    await composer.press('Enter');
    await page.getByTestId('composer-offline-notice').waitFor();
    await page.screenshot({ path: path.join(os.tmpdir(), 'wheelhouse-offline-notice.png') });
    expect(await composer.inputValue()).toBe('Written while away');
    expect(await page.getByTestId('composer-hint').innerText()).toContain('Not connected');

    // While the page is away, another client adds a thread.
    runtime = new InProcessRuntime(home);
    const restarted = runtime;
    cleanups.push(() => restarted.close());
    const other = await runtime.client();
    const { thread } = await other.request('thread/start', {});
    await other.request('thread/name/set', { threadId: thread.id, name: 'Made while the page was away' });
    await runtime.listen({ port: server.port, token, staticRoot });

    await waitForConnected(page);
    await page.getByTestId('composer-offline-notice').waitFor({ state: 'detached' });
    expect(await composer.inputValue()).toBe('Written while away');
    await rowWithTitle(page, before, 'Made before the restart').waitFor();
    await rowWithTitle(page, thread.id, 'Made while the page was away').waitFor();
    expect(await page.getByTestId('new-thread').isDisabled()).toBe(false);
    // The model picker fetches its list again after the reconnect dropped it (an empty menu was the bug).
    await page.getByTestId('model-picker').click();
    await page.locator('.model-menu').locator('[data-testid="model-option"], .model-menu-note:not(:text("Loading models"))').first().waitFor();
    await page.keyboard.press('Escape');
    expect(withoutNetworkRefusals(errors)).toEqual([]);
  });
});
