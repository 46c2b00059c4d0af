import { beforeEach, describe, expect, it } from 'vitest';
import { axeProblems } from './axe.js';
import { e2eTarget } from './harness.js';
import { waitForConnected, withoutNetworkRefusals } from './page-actions.js';
import { shootBothSchemes } from './screenshots.js';
import { openServedPage, useCleanups } from './served-page.js';

const cleanups = useCleanups();

describe('the window while Wheelhouse is away', () => {
  beforeEach((ctx) => {
    if (e2eTarget() === 'electron') ctx.skip('the runtime is stopped under the page here; the desktop app restarts its own (electron/main/runtime-lifecycle.test.ts)');
  });

  it('shows a banner that says so, stops claiming live counts, and goes when Wheelhouse is back', async () => {
    const served = await openServedPage(cleanups, { restarts: true });
    const { runtime, page, errors, home } = served;

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
    expect(await axeProblems(page)).toEqual([]);
    await shootBothSchemes(page, 'desktop-shell', 'banner-stopped');

    // It starts again: the banner goes by itself and the badge is live again.
    await served.serveAgain(served.newRuntime());
    await waitForConnected(page);
    await banner.waitFor({ state: 'detached' });
    expect(await page.locator('.app-shell').getAttribute('data-live')).toBe('true');
    expect(withoutNetworkRefusals(errors)).toEqual([]);
  });
});
