import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeProblems } from './axe.js';
import type { WheelhouseApp } from './harness.js';
import { useLaunchedApp } from './launched-app.js';
import { snap } from './screenshots.js';

const progressOf = async (page: Page) => Number((await page.getByTestId('job-progress-label').first().textContent())?.match(/(\d+)%/)?.[1] ?? -1);
const outputText = (page: Page) => page.getByTestId('job-log').innerText();

/**
 * A person who does not use a terminal starts a long command from the
 * dashboard, watches its progress move, pauses it, resumes it and cancels it.
 */
describe('jobs dashboard', () => {
  let app: WheelhouseApp;
  let folder: string;
  useLaunchedApp({ folderPrefix: 'wheelhouse-e2e-jobs-' }, (parts) => ({ app, folder } = parts));

  it('creates a job from the dialog, shows progress moving, pauses, resumes and cancels it', async () => {
    const { page } = app;
    await page.getByTestId('open-jobs').click();
    await page.getByTestId('jobs-view').waitFor();
    await page.getByTestId('new-job').click();
    const dialog = page.getByTestId('new-job-dialog');
    await dialog.getByTestId('job-name').fill('Slow counter');
    await dialog.getByTestId('folder-input').fill(folder);
    await dialog.getByTestId('job-command').fill(`for i in $(seq 1 200); do printf '\\033]9;4;1;%d\\007' $((i / 2)); echo "step $i"; sleep 0.15; done`);
    await dialog.getByTestId('job-retries').fill('1');
    await dialog.getByTestId('job-timeout').fill('10');
    // Running it again after a lost run is the person's call, off until they say it is safe.
    const rerun = dialog.getByTestId('job-rerun-if-lost');
    expect(await rerun.isChecked()).toBe(false);
    await rerun.check();
    await snap(page, '1-new-job-dialog');
    expect(await axeProblems(page)).toEqual([]);
    await dialog.getByTestId('job-submit').click();

    const jobPage = page.getByTestId('job-page');
    await jobPage.and(page.locator('[data-status="running"]')).waitFor();
    await expect.poll(() => progressOf(page), { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
    const first = await progressOf(page);
    await expect.poll(() => progressOf(page), { timeout: 20_000 }).toBeGreaterThan(first);
    await expect.poll(() => outputText(page), { timeout: 20_000 }).toContain('step 10');
    // One retry allowed: the first of at most two attempts.
    expect(await jobPage.innerText()).toContain('attempt 1 (of at most 2)');
    await snap(page, '2-job-running');
    expect(await axeProblems(page)).toEqual([]);

    await page.getByTestId('job-pause').click();
    await jobPage.and(page.locator('[data-status="paused"]')).waitFor();
    const pausedAt = await progressOf(page);
    await expect.poll(() => page.getByTestId('job-timeline').innerText()).toContain('Paused');
    await snap(page, '3-job-paused');

    await page.getByTestId('job-resume').click();
    await jobPage.and(page.locator('[data-status="running"]')).waitFor();
    await expect.poll(() => progressOf(page), { timeout: 20_000 }).toBeGreaterThan(pausedAt);

    // Cancelling asks first; keeping it running changes nothing.
    await page.getByTestId('job-cancel').click();
    await page.getByTestId('confirm-dialog').waitFor();
    await page.getByTestId('confirm-dismiss').click();
    await page.getByTestId('confirm-dialog').waitFor({ state: 'detached' });
    expect(await jobPage.getAttribute('data-status')).toBe('running');
    await page.getByTestId('job-cancel').click();
    await page.getByTestId('confirm-action').click();
    await jobPage.and(page.locator('[data-status="cancelled"]')).waitFor();
    await expect.poll(() => page.getByTestId('job-timeline').innerText()).toContain('Cancelled');
    await page.getByTestId('job-retry').waitFor();

    await page.getByTestId('job-back').click();
    const row = page.getByTestId('job-row');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getByTestId('job-status').textContent()).toBe('Cancelled');
    await page.getByTestId('job-filter-running').click();
    await expect.poll(() => row.count()).toBe(0);
    await page.getByTestId('job-filter-all').click();
    await page.getByTestId('job-search').fill('counter');
    await expect.poll(() => row.count()).toBe(1);
    await snap(page, '4-jobs-list');
    expect(app.errors).toEqual([]);
  });
});
