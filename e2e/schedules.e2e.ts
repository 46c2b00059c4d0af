import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blocking, runAxe } from './axe.js';
import { launchWheelhouse, type WheelhouseApp } from './harness.js';
import { skipSetup, waitForConnected } from './page-actions.js';

/** WHEELHOUSE_E2E_SCREENSHOTS=<folder> keeps a picture of each step, for looking at the UI. */
async function snap(page: Page, name: string): Promise<void> {
  const folder = process.env['WHEELHOUSE_E2E_SCREENSHOTS'];
  if (folder) {
    await mkdir(folder, { recursive: true });
    await page.screenshot({ path: path.join(folder, `${name}.png`) });
  }
}

const axeProblems = async (page: Page) => blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`);

/**
 * A person builds "every weekday at 09:00" and "every minute" without knowing
 * cron, sees the cron text and the next five runs, creates the schedule, and
 * Run now makes a job that links back to its schedule.
 */
describe('schedules', () => {
  let app: WheelhouseApp;
  let folder: string;

  beforeEach(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-schedules-'));
    app = await launchWheelhouse();
    await waitForConnected(app.page);
    await skipSetup(app.page);
  });

  afterEach(async () => {
    await app?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('creates a schedule from the builder; Run now produces a job whose page links back to the schedule', async () => {
    const { page } = app;
    await page.getByTestId('open-jobs').click();
    await page.getByTestId('tab-schedules').click();
    await page.getByTestId('new-schedule').click();
    const dialog = page.getByTestId('schedule-dialog');
    await dialog.getByTestId('schedule-name').fill('Hourly check');
    await dialog.getByTestId('folder-input').fill(folder);
    await dialog.getByTestId('schedule-command').fill('echo checked');
    // The default choice, in words and in cron.
    expect(await dialog.getByTestId('schedule-cron-text').innerText()).toBe('0 9 * * 1-5');
    expect(await dialog.getByTestId('schedule-preview').innerText()).toContain('every weekday at 09:00');
    await dialog.getByTestId('schedule-zone').fill('Europe/Berlin');
    expect(await dialog.getByTestId('schedule-next-five').locator('li').count()).toBe(5);
    expect(await dialog.getByTestId('schedule-dst-note').innerText()).toMatch(/daylight saving time/);
    await snap(page, 'schedules-1-builder-weekdays');

    await dialog.getByTestId('schedule-kind').selectOption('everyMinutes');
    await dialog.getByTestId('schedule-count').fill('1');
    expect(await dialog.getByTestId('schedule-cron-text').innerText()).toBe('* * * * *');
    await dialog.getByTestId('schedule-kind').selectOption('cron');
    await dialog.getByTestId('schedule-cron').fill('61 * * * *');
    expect(await dialog.getByTestId('schedule-when-error').innerText()).toMatch(/minute/);
    await dialog.getByTestId('schedule-kind').selectOption('everyHours');
    await dialog.getByTestId('schedule-count').fill('2');
    expect(await dialog.getByTestId('schedule-cron-text').innerText()).toBe('0 */2 * * *');
    await snap(page, 'schedules-2-builder-every-2-hours');
    expect(await axeProblems(page)).toEqual([]);
    await dialog.getByTestId('schedule-submit').click();

    const card = page.getByTestId('schedule-card').filter({ hasText: 'Hourly check' });
    await card.waitFor();
    expect(await card.innerText()).toContain('cron 0 */2 * * * (Europe/Berlin)');
    expect(await card.getByTestId('schedule-next').innerText()).toMatch(/^Next run /);
    await card.getByTestId('schedule-run-now').click();
    const cell = card.locator('[data-outcome="completed"]');
    await cell.waitFor({ timeout: 30_000 });
    await snap(page, 'schedules-3-after-run-now');
    expect(await axeProblems(page)).toEqual([]);

    await card.getByTestId('schedule-pause').click();
    await expect.poll(() => card.getByTestId('schedule-next').innerText()).toBe('Paused');
    await card.getByTestId('schedule-resume').click();
    await expect.poll(() => card.getByTestId('schedule-next').innerText()).toMatch(/^Next run /);

    // The run is a normal job: its page says where it came from and links back.
    await cell.getByRole('button').click();
    const jobPage = page.getByTestId('job-page');
    await jobPage.waitFor();
    expect(await jobPage.getAttribute('data-status')).toBe('completed');
    expect(await page.getByTestId('job-schedule-link').innerText()).toBe('Hourly check');
    await snap(page, 'schedules-4-job-page');
    await page.getByTestId('job-schedule-link').click();
    await page.getByTestId('schedule-card').filter({ hasText: 'Hourly check' }).waitFor();
    expect(await page.getByTestId('tab-schedules').getAttribute('aria-selected')).toBe('true');
  });
});
