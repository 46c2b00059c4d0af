import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { e2eTarget, launchChromium, openClientPage, repoRoot, requireBuilt } from './harness.js';
import { InProcessRuntime } from './in-process-runtime.js';
import { waitForConnected, withoutNetworkRefusals } from './page-actions.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const staticRoot = path.join(repoRoot, 'dist/renderer');
const newToken = () => randomBytes(24).toString('base64url');

async function setUp(): Promise<{ home: string; browser: Browser; errors: string[] }> {
  requireBuilt('dist/renderer/index.html');
  const home = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const browser = await launchChromium();
  cleanups.push(() => browser.close());
  return { home, browser, errors: [] };
}

async function serve(home: string, port: number, token: string) {
  const runtime = new InProcessRuntime(home);
  const server = await runtime.listen({ port, token, staticRoot });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await runtime.close();
  };
  cleanups.push(close);
  return { server, close };
}

/** Pastes a link into the tab's address bar the way a person does: only the hash changes, no reload. */
async function pasteToken(page: Page, token: string): Promise<void> {
  await page.evaluate((value) => {
    window.location.hash = `token=${value}`;
  }, token);
}

describe('a page without a usable access token', () => {
  beforeEach((ctx) => {
    if (e2eTarget() === 'electron') ctx.skip('tokens and refused connections exist only on the browser host');
  });

  it('explains on a full page how to get in, then connects when the link is pasted into the same tab', async () => {
    const { home, browser, errors } = await setUp();
    const token = newToken();
    const { server } = await serve(home, 0, token);
    const page = await openClientPage(browser, `http://127.0.0.1:${server.port}/`, errors);

    const gate = page.locator('[data-testid="access-gate"][data-problem="no-token"]');
    await gate.waitFor();
    const text = await gate.innerText();
    expect(text).toContain('wheelhouse serve');
    expect(text).toContain('Paste that link into this tab');
    expect(text).not.toContain('`');
    // Nothing of the app hides behind it pretending to work.
    expect(await page.getByTestId('new-thread').count()).toBe(0);
    // The whole message fits: no element clips its text.
    const clipped = await gate.evaluate((root) =>
      Array.from(root.querySelectorAll<HTMLElement>('*')).some((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflow !== 'visible'),
    );
    expect(clipped).toBe(false);

    await pasteToken(page, token);
    await waitForConnected(page);
    expect(await gate.count()).toBe(0);
    expect(new URL(page.url()).hash).toBe('');
    expect(withoutNetworkRefusals(errors)).toEqual([]);
  });

  it('tells a refused token apart from a stopped server, says why it stopped, and takes a new link without a reload', async () => {
    const { home, browser, errors } = await setUp();
    const oldToken = newToken();
    const first = await serve(home, 0, oldToken);
    const port = first.server.port;
    const page = await openClientPage(browser, first.server.url, errors);
    await waitForConnected(page);

    // The server stops: the banner says so (the server said why) and the page keeps trying.
    await first.close();
    await page.locator('[data-testid="connection-status"][data-status="reconnecting"]').waitFor();
    await expect.poll(() => page.getByTestId('connection-banner').innerText()).toContain('Wheelhouse has stopped');
    expect(await page.getByTestId('access-gate').count()).toBe(0);

    // It comes back with a rotated token: the page stops retrying and says what to do.
    const rotated = newToken();
    await serve(home, port, rotated);
    await page.locator('[data-testid="access-gate"][data-problem="token-refused"]').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('access-gate').innerText()).toContain('refused this page’s access token');

    await pasteToken(page, rotated);
    await waitForConnected(page);
    await page.getByTestId('new-thread').waitFor();
    expect(withoutNetworkRefusals(errors)).toEqual([]);
  });
});
