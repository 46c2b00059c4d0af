import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { blocking, runAxe } from './axe.js';
import type { WheelhouseApp } from './harness.js';
import { useLaunchedApp } from './launched-app.js';
import { snap } from './screenshots.js';

const LINES = 100_000;

async function expectAccessible(page: Page, screen: string): Promise<void> {
  expect(blocking(await runAxe(page)).map((v) => `${screen}: ${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
}

/** What the window looks like in size: how tall the document is, the job page and its output, and where the sidebar's footer is. */
function measure(page: Page) {
  return page.evaluate(() => {
    const box = (selector: string) => document.querySelector(selector)!.getBoundingClientRect();
    return {
      documentHeight: document.documentElement.scrollHeight,
      windowHeight: window.innerHeight,
      pageHeight: box('[data-testid="job-page"]').height,
      outputHeight: box('[data-testid="job-log"]').height,
      footerBottom: box('.sidebar-footer').bottom,
      footerTop: box('.sidebar-footer').top,
    };
  });
}

/** The rows the log view has drawn inside its visible box, by line number. */
function visibleLines(page: Page) {
  return page.evaluate(() => {
    const view = document.querySelector('[data-testid="job-log"]')!.getBoundingClientRect();
    return Array.from(document.querySelectorAll<HTMLElement>('[data-testid="job-log"] .log-line'))
      .filter((row) => {
        const r = row.getBoundingClientRect();
        return r.top >= view.top - 1 && r.bottom <= view.bottom + 1;
      })
      .map((row) => ({ line: Number(row.dataset['line']), text: row.querySelector('.log-text')!.textContent ?? '', marked: row.querySelector('mark') !== null }));
  });
}

/**
 * A job that prints 100,000 lines on its second attempt: the page keeps the
 * window's height while it runs, the last line and the sidebar's footer stay
 * in view, search finds a line near the top, the first attempt's output is
 * one choice away, and the page and dashboard pass axe in both palettes.
 */
describe('job page with a 100,000-line job', () => {
  let app: WheelhouseApp;
  let folder: string;
  useLaunchedApp({ folderPrefix: 'wheelhouse-e2e-job-page-' }, (parts) => ({ app, folder } = parts));

  it('stays the window’s height, reaches the last line, searches, and shows each attempt', async () => {
    const { page } = app;
    await page.getByTestId('open-jobs').click();
    await page.getByTestId('new-job').click();
    const dialog = page.getByTestId('new-job-dialog');
    await dialog.getByTestId('job-name').fill('Hundred thousand lines');
    await dialog.getByTestId('folder-input').fill(folder);
    // Attempt 1 fails; attempt 2 prints the lines, then waits for the test's word (a file) to end.
    await dialog
      .getByTestId('job-command')
      .fill(`if [ -f tried ]; then seq -f 'row %06g' 1 ${LINES}; while [ ! -f go ]; do sleep 0.1; done; else touch tried; echo 'first attempt: missing config'; exit 3; fi`);
    await dialog.getByTestId('job-retries').fill('1');
    await dialog.getByTestId('job-submit').click();

    const jobPage = page.getByTestId('job-page');
    const log = page.getByTestId('job-log');
    await page.locator(`[data-testid="job-log"][data-lines="${LINES}"]`).waitFor({ timeout: 60_000 });
    expect(await jobPage.getAttribute('data-status')).toBe('running');
    await expect.poll(() => page.getByTestId('job-status-line').textContent()).toBe('Running attempt 2 (of at most 2)');
    expect(await page.getByTestId('job-attempt').inputValue()).toBe('2');

    // Following: the last line is on screen.
    await expect.poll(async () => (await visibleLines(page)).at(-1), { timeout: 20_000 }).toEqual({ line: LINES, text: `row ${String(LINES).padStart(6, '0')}`, marked: false });
    const before = await measure(page);
    expect(before.documentHeight).toBeLessThanOrEqual(before.windowHeight);
    expect(before.footerBottom).toBeLessThanOrEqual(before.windowHeight);
    expect(before.footerTop).toBeGreaterThan(0);
    expect(before.outputHeight).toBeGreaterThan(200);
    await snap(page, 'job-page-1-following');

    // Time passes while it runs (the running clock ticks twice): nothing grows.
    const clock = page.locator('.job-facts dd').filter({ hasText: / s$/ }).first();
    for (let tick = 0; tick < 2; tick += 1) {
      const shown = await clock.textContent();
      await expect.poll(() => clock.textContent(), { timeout: 10_000 }).not.toBe(shown);
    }
    expect(await measure(page)).toEqual(before);

    // Scrolling up stops following; "Jump to end" comes back to the last line.
    await log.hover();
    for (let step = 0; step < 20; step += 1) await page.mouse.wheel(0, -400);
    await page.locator('[data-testid="job-log"]:not([data-following])').waitFor();
    expect(await page.getByTestId('log-jump-end').textContent()).toBe('Jump to end');
    expect((await visibleLines(page)).at(-1)!.line).toBeLessThan(LINES);
    await page.getByTestId('log-jump-end').click();
    await expect.poll(async () => (await visibleLines(page)).at(-1)?.line).toBe(LINES);

    // Search finds a line near the top, among 100,000, and shows it marked.
    await page.getByTestId('log-search').fill('row 000042');
    await expect.poll(() => page.getByTestId('log-search-count').textContent(), { timeout: 20_000 }).toBe('1 of 1');
    await expect.poll(async () => (await visibleLines(page)).find((row) => row.line === 42)).toEqual({ line: 42, text: 'row 000042', marked: true });
    await page.getByTestId('log-search').fill('row 00004');
    await expect.poll(() => page.getByTestId('log-search-count').textContent(), { timeout: 20_000 }).toBe('1 of 10');
    await page.getByTestId('log-search').press('Enter');
    await expect.poll(() => page.getByTestId('log-search-count').textContent()).toBe('2 of 10');
    await snap(page, 'job-page-2-search');
    await expectAccessible(page, 'job page, light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, 'job page, dark');
    await snap(page, 'job-page-3-search-dark');

    // The first attempt's output, one choice away.
    await page.getByTestId('job-attempt').selectOption('1');
    await page.locator('[data-testid="job-log"][data-lines="1"]').waitFor();
    await expect.poll(() => visibleLines(page)).toEqual([{ line: 1, text: 'first attempt: missing config', marked: false }]);
    expect(await page.getByTestId('job-attempt').locator('option:checked').textContent()).toBe('Attempt 1 — failed');
    await page.getByTestId('job-attempt').selectOption('2');
    await page.locator(`[data-testid="job-log"][data-lines="${LINES}"]`).waitFor();

    // The dashboard: row actions, each labelled, and Cancel asks first.
    await page.getByTestId('job-back').click();
    const row = page.getByTestId('job-row').filter({ hasText: 'Hundred thousand lines' });
    expect(await row.getByTestId('job-row-pause').getAttribute('aria-label')).toBe('Pause Hundred thousand lines');
    await row.getByTestId('job-row-cancel').click();
    await page.getByTestId('confirm-dialog').waitFor();
    await snap(page, 'job-page-4-cancel-asks');
    await page.getByTestId('confirm-dismiss').click();
    expect(await row.getAttribute('data-status')).toBe('running');
    await expectAccessible(page, 'jobs dashboard, dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await expectAccessible(page, 'jobs dashboard, light');
    await snap(page, 'job-page-5-dashboard');

    // Released, it completes; the status line says so.
    await writeFile(path.join(folder, 'go'), '');
    await row.and(page.locator('[data-status="completed"]')).waitFor({ timeout: 20_000 });
    await row.getByTestId('job-row-open').click();
    await expect.poll(() => page.getByTestId('job-status-line').textContent()).toBe('Completed in 2 attempts · exited with code 0');
    expect(await page.getByTestId('log-footer').textContent()).toBe('100,000 lines · 1.1 MB');

    // The whole log downloads as text, every line of it.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('log-download').click()]);
    expect(download.suggestedFilename()).toBe('Hundred-thousand-lines-attempt-2.log');
    const saved = (await readFile((await download.path())!, 'utf8')).split('\n');
    expect(saved).toHaveLength(LINES + 1);
    expect([saved[0], saved[LINES - 1], saved[LINES]]).toEqual(['row 000001', `row ${String(LINES).padStart(6, '0')}`, '']);
    expect(app.errors).toEqual([]);
  });
});
