import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGate, startMockModelServer, type MockModelServer } from '../test-support/mock-model/index.js';
import { runAxe, type AxeViolation } from './axe.js';
import { e2eTarget, launchChromium, launchWheelhouse, openClientPage, repoRoot, requireBuilt } from './harness.js';
import { InProcessRuntime } from './in-process-runtime.js';
import { completeFirstRun, sendMessage, waitForConnected } from './page-actions.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let mock: MockModelServer;
beforeAll(async () => {
  mock = await startMockModelServer({ models: ['mock-coder'] });
});
afterAll(async () => {
  await mock?.close();
});

/** Fails with every serious or critical violation listed (rule, help, elements). */
async function expectNoBlockingViolations(page: Page, screen: string): Promise<AxeViolation[]> {
  const violations = await runAxe(page);
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(blocking, `${screen}: ${JSON.stringify(blocking, null, 2)}`).toEqual([]);
  if (process.env['AXE_DEBUG']) console.log(screen, JSON.stringify(violations));
  return violations;
}

describe('accessibility (axe-core) on every screen', () => {
  it('first run, the empty app, a conversation and Settings have no serious or critical violations', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-project-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    await writeFile(path.join(folder, 'README.md'), '# A project\n');
    const app = await launchWheelhouse();
    cleanups.push(() => app.close());
    const { page } = app;
    await waitForConnected(page);

    await page.getByTestId('setup-screen').waitFor();
    await expectNoBlockingViolations(page, 'first run');

    mock.enqueue([{ type: 'text', text: 'ready' }, { type: 'finish' }]);
    await completeFirstRun(page, { baseUrl: mock.url, folder });
    await page.getByTestId('suggestion').first().waitFor();
    const empty = await expectNoBlockingViolations(page, 'empty thread');
    expect(empty.map((v) => v.id)).not.toContain('region');

    mock.enqueue([
      { type: 'reasoning', text: 'Looking at the files.' },
      { type: 'text', text: 'Here is **the summary** with `code`.' },
      { type: 'finish', usage: { inputTokens: 100, outputTokens: 20 } },
    ]);
    await sendMessage(page, 'Summarise this project');
    await page.getByTestId('turn-usage').waitFor();
    await expectNoBlockingViolations(page, 'conversation');
    // The dark palette (the default outside this headless browser) is held to the same rules.
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectNoBlockingViolations(page, 'conversation, dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // A running turn with a queued message (the queue panel under the composer).
    const gate = createGate();
    mock.enqueue([{ type: 'text', text: 'Working on it' }, { type: 'waitFor', release: gate.promise }, { type: 'finish' }]);
    await sendMessage(page, 'Start the long job');
    await page.getByTestId('stop-button').waitFor();
    await page.getByTestId('composer-input').fill('A follow-up');
    await page.getByTestId('queue-button').click();
    await page.getByTestId('queue-card').waitFor();
    await expectNoBlockingViolations(page, 'running turn with a queue');
    await page.getByTestId('stop-button').click();
    await page.getByTestId('turn-stopped').first().waitFor();
    gate.release();

    await page.getByTestId('open-settings').click();
    await page.locator('[data-testid="setup-screen"][data-mode="settings"] [data-testid="setup-done"]').waitFor();
    await expectNoBlockingViolations(page, 'settings');
    // Primary buttons (white text on the accent) are the usual casualty of a dark palette.
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectNoBlockingViolations(page, 'settings, dark');
    expect(app.errors).toEqual([]);
  });

  it('works from the keyboard alone: focus stays in the setup dialog, send, stop and the thread menu', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-project-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const app = await launchWheelhouse();
    cleanups.push(() => app.close());
    const { page } = app;
    await waitForConnected(page);
    await page.getByTestId('setup-screen').waitFor();

    // Tab and Shift+Tab cycle inside the dialog; the sidebar behind it is inert.
    const focusInDialog = () => page.evaluate(() => document.querySelector('[data-testid="setup-screen"]')?.contains(document.activeElement) ?? false);
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      expect(await focusInDialog()).toBe(true);
    }
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await focusInDialog()).toBe(true);
    }
    expect(await page.locator('.app-shell-background').evaluate((el) => (el as HTMLElement).inert)).toBe(true);
    // The focused control shows a visible ring.
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).not.toBe('none');

    mock.enqueue([{ type: 'text', text: 'ready' }, { type: 'finish' }]);
    await completeFirstRun(page, { baseUrl: mock.url, folder });
    expect(await page.locator('.app-shell-background').evaluate((el) => (el as HTMLElement).inert)).toBe(false);

    // Send with Enter, stop by tabbing to Stop.
    const gate = createGate();
    mock.enqueue([{ type: 'text', text: 'Reading' }, { type: 'waitFor', release: gate.promise }, { type: 'finish' }]);
    await page.getByTestId('composer-input').focus();
    await page.keyboard.type('Read everything');
    await page.keyboard.press('Enter');
    await page.getByTestId('stop-button').waitFor();
    await page.getByTestId('stop-button').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('turn-stopped').waitFor();
    gate.release();

    // The row menu opens, moves and acts from the keyboard.
    await page.getByTestId('thread-menu').first().focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menu').waitFor();
    const focusedItem = () => page.evaluate(() => document.activeElement?.getAttribute('role'));
    expect(await focusedItem()).toBe('menuitem');
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('thread-menu');
    expect(app.errors).toEqual([]);
  });

  it('the page without a token has no serious or critical violations', async (ctx) => {
    if (e2eTarget() === 'electron') ctx.skip('access tokens exist only on the browser host');
    requireBuilt('dist/renderer/index.html');
    const home = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-'));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    const runtime = new InProcessRuntime(home);
    cleanups.push(() => runtime.close());
    const server = await runtime.listen({ port: 0, token: randomBytes(24).toString('base64url'), staticRoot: path.join(repoRoot, 'dist/renderer') });
    const browser = await launchChromium();
    cleanups.push(() => browser.close());
    const page = await openClientPage(browser, `http://127.0.0.1:${server.port}/`, []);
    await page.getByTestId('access-gate').waitFor();
    await expectNoBlockingViolations(page, 'no token');
  });
});
