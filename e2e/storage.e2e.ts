import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { blocking, runAxe } from './axe.js';
import { launchChromium, openClientPage, repoRoot, requireBuilt } from './harness.js';
import { InProcessRuntime } from './in-process-runtime.js';
import { skipSetup, waitForConnected } from './page-actions.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function shoot(page: Page, name: string, target = page.locator('body')): Promise<void> {
  const folder = path.join(os.tmpdir(), 'shots', 'lean');
  await mkdir(folder, { recursive: true });
  for (const colorScheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme });
    await target.screenshot({ path: path.join(folder, `${name}-${colorScheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: null });
}

async function open(): Promise<{ page: Page; home: string }> {
  requireBuilt('dist/renderer/index.html');
  const home = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const runtime = new InProcessRuntime(home);
  cleanups.push(() => runtime.close());
  const server = await runtime.listen({ port: 0, token: randomBytes(18).toString('base64url'), staticRoot: path.join(repoRoot, 'dist/renderer') });
  const browser = await launchChromium();
  cleanups.push(() => browser.close());
  const errors: string[] = [];
  cleanups.push(async () => expect(errors).toEqual([]));
  const page = await openClientPage(browser, server.url, errors);
  await waitForConnected(page);
  await skipSetup(page);
  return { page, home };
}

describe('Settings → Storage', () => {
  it('says how much Wheelhouse uses and saves a budget in config.toml', async () => {
    const { page, home } = await open();
    await page.getByTestId('open-settings').click();
    const section = page.getByTestId('storage-section');
    await section.scrollIntoViewIfNeeded();
    await expect.poll(() => page.getByTestId('storage-usage').textContent()).toMatch(/^Wheelhouse uses (< 1|\d+) MB\./);
    const days = page.getByTestId('budget-maxAgeDays').locator('input');
    expect(await days.inputValue()).toBe('30');
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await shoot(page, 'settings-storage', section);

    await days.fill('14');
    await days.press('Enter');
    await expect.poll(() => readFile(path.join(home, 'config.toml'), 'utf8')).toMatch(/\[wheelhouse\.retention\]\s*\nmax_age_days = 14/);
    // A value the config refuses is explained and not kept.
    const events = page.getByTestId('budget-eventLogMb').locator('input');
    await events.fill('1');
    await events.press('Enter');
    await page.getByTestId('toast').first().waitFor();
    expect(await readFile(path.join(home, 'config.toml'), 'utf8')).not.toMatch(/event_log_mb/);
  });
});
