import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { e2eTarget } from './harness.js';
import { createThread, renameThread, rowWithTitle, waitForConnected, withoutNetworkRefusals } from './page-actions.js';
import { openServedPage, useCleanups } from './served-page.js';

const cleanups = useCleanups();

describe('a page whose runtime restarts', () => {
  beforeEach((ctx) => {
    if (e2eTarget() === 'electron') ctx.skip('the Electron bridge never drops; only the browser host has a connection to lose');
  });

  it('shows it is reconnecting, comes back on its own, and refetches what changed meanwhile', async () => {
    const served = await openServedPage(cleanups, { restarts: true });
    const { runtime, page, errors } = served;
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
    const restarted = served.newRuntime();
    const other = await restarted.client();
    const { thread } = await other.request('thread/start', {});
    await other.request('thread/name/set', { threadId: thread.id, name: 'Made while the page was away' });
    await served.serveAgain(restarted);

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
