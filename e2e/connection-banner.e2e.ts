import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blocking, runAxe } from './axe.js';
import { e2eTarget, launchChromium, openClientPage, repoRoot, requireBuilt } from './harness.js';
import { InProcessRuntime } from './in-process-runtime.js';
import { skipSetup, waitForConnected, withoutNetworkRefusals } from './page-actions.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const shots = path.join(os.tmpdir(), 'shots', 'desktop-shell');

async function shoot(page: Page, name: string): Promise<void> {
  await mkdir(shots, { recursive: true });
  for (const colorScheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: path.join(shots, `${name}-${colorScheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: null });
}

describe('the window while Wheelhouse is away', () => {
  beforeEach((ctx) => {
    if (e2eTarget() === 'electron') ctx.skip('the runtime is stopped under the page here; the desktop app restarts its own (electron/main/runtime-lifecycle.test.ts)');
  });

  it('shows a banner that says so, stops claiming live counts, and goes when Wheelhouse is back', async () => {
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

    // A job runs: the Jobs badge counts it.
    const other = await runtime.client();
    await other.request('job/create', { kind: 'command', name: 'long build', command: 'sleep 300', cwd: home });
    const badge = page.getByTestId('jobs-badge');
    await expect.poll(() => badge.innerText()).toBe('1');
    expect(await page.getByTestId('connection-banner').count()).toBe(0);

    // Wheelhouse stops: a banner across the window says what happened, and the badge no longer claims "1 running".
    await runtime.close();
    const banner = page.getByTestId('connection-banner');
    await banner.waitFor();
    expect(await banner.innerText()).toContain('Wheelhouse has stopped');
    expect(await banner.innerText()).toContain('reconnects by itself');
    expect(await page.locator('.app-shell').getAttribute('data-live')).toBe('false');
    await expect.poll(() => badge.getAttribute('data-live')).toBe('false');
    expect((await badge.innerText()).startsWith('?')).toBe(true);
    expect(await page.getByTestId('open-jobs').isDisabled()).toBe(true);
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    await shoot(page, 'banner-stopped');

    // It starts again: the banner goes by itself and the badge is live again.
    runtime = new InProcessRuntime(home);
    const restarted = runtime;
    cleanups.push(() => restarted.close());
    await runtime.listen({ port: server.port, token, staticRoot });
    await waitForConnected(page);
    await banner.waitFor({ state: 'detached' });
    expect(await page.locator('.app-shell').getAttribute('data-live')).toBe('true');
    expect(withoutNetworkRefusals(errors)).toEqual([]);
  });
});
