import { describe, expect, it } from 'vitest';
import { axeProblems } from './axe.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { e2eTarget, type WheelhouseApp } from './harness.js';
import { useLaunchedApp } from './launched-app.js';
import { snap } from './screenshots.js';
import { openServedPage, useCleanups } from './served-page.js';

/**
 * A person builds "every weekday at 09:00" and "every minute" without knowing
 * cron, sees the cron text and the next five runs, creates the schedule, and
 * Run now makes a job that links back to its schedule.
 */
describe('schedules', () => {
  let app: WheelhouseApp;
  let folder: string;
  useLaunchedApp({ folderPrefix: 'wheelhouse-e2e-schedules-' }, (parts) => ({ app, folder } = parts));

  it('creates a schedule from the builder; Run now produces a job whose page links back to the schedule', async () => {
    const { page } = app;
    await page.getByTestId('open-jobs').click();
    await page.getByTestId('tab-schedules').click();
    await page.getByTestId('new-schedule').click();
    const dialog = page.getByTestId('schedule-dialog');
    await dialog.getByTestId('schedule-name').fill('Hourly check');
    await dialog.getByTestId('folder-input').fill(folder);
    await dialog.getByTestId('job-command').fill('echo checked');
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

    // Edit opens the builder on the schedule as saved, and saves with schedule/update.
    await card.getByTestId('schedule-edit').click();
    const edit = page.getByTestId('schedule-dialog');
    expect(await edit.getByRole('heading').innerText()).toBe('Edit “Hourly check”');
    expect(await edit.getByTestId('schedule-name').inputValue()).toBe('Hourly check');
    expect(await edit.getByTestId('job-command').inputValue()).toBe('echo checked');
    expect(await edit.getByTestId('schedule-kind').inputValue()).toBe('everyHours');
    expect(await edit.getByTestId('schedule-count').inputValue()).toBe('2');
    expect(await edit.getByTestId('schedule-zone').inputValue()).toBe('Europe/Berlin');
    expect(await edit.getByTestId('schedule-notify').inputValue()).toBe('failure');
    await edit.getByTestId('job-command').fill('echo checked again');
    await edit.getByTestId('schedule-kind').selectOption('daily');
    await edit.getByTestId('schedule-time').fill('07:30');
    await edit.getByTestId('schedule-notify').selectOption('always');
    await snap(page, 'schedules-5-edit');
    expect(await axeProblems(page)).toEqual([]);
    await edit.getByTestId('schedule-submit').click();
    await edit.waitFor({ state: 'detached' });
    await expect.poll(() => card.innerText()).toContain('cron 30 7 * * * (Europe/Berlin)');
    expect(await card.innerText()).toContain('echo checked again');
    expect(await card.innerText()).toContain('notifies after every run');
    // The run made before the edit stays in the history.
    expect(await card.locator('[data-outcome="completed"]').count()).toBe(1);
  });

  it('schedules an agent job with its goal, budgets, approvals and sandbox; editing shows them as saved', async () => {
    const { page } = app;
    await page.getByTestId('open-jobs').click();
    await page.getByTestId('tab-schedules').click();
    await page.getByTestId('new-schedule').click();
    const dialog = page.getByTestId('schedule-dialog');
    await dialog.getByTestId('schedule-name').fill('Morning triage');
    await dialog.getByTestId('job-kind-agent').click();
    await dialog.getByTestId('folder-input').fill(folder);
    await dialog.getByTestId('job-objective').fill('Label the new issues');
    await dialog.getByTestId('job-token-budget').fill('20000');
    await dialog.getByTestId('job-time-budget').fill('15');
    await dialog.getByTestId('job-approval-policy').selectOption('never');
    await dialog.getByTestId('job-sandbox').selectOption('read-only');
    await dialog.getByTestId('job-max-turns').fill('5');
    await dialog.getByTestId('job-allow-commands').fill('gh issue list, gh issue edit');
    await dialog.getByTestId('schedule-kind').selectOption('monthlyNth');
    expect(await dialog.getByTestId('schedule-cron-text').innerText()).toBe('0 9 * * 1#1');
    await snap(page, 'schedules-6-agent-builder');
    expect(await axeProblems(page)).toEqual([]);
    await dialog.getByTestId('schedule-submit').click();

    const card = page.getByTestId('schedule-card').filter({ hasText: 'Morning triage' });
    await card.waitFor();
    expect(await card.innerText()).toContain('an agent: Label the new issues');
    await card.getByTestId('schedule-edit').click();
    const edit = page.getByTestId('schedule-dialog');
    expect(await edit.getByTestId('job-kind-agent').getAttribute('aria-checked')).toBe('true');
    expect(await edit.getByTestId('job-objective').inputValue()).toBe('Label the new issues');
    expect(await edit.getByTestId('job-token-budget').inputValue()).toBe('20000');
    expect(await edit.getByTestId('job-time-budget').inputValue()).toBe('15');
    expect(await edit.getByTestId('job-approval-policy').inputValue()).toBe('never');
    expect(await edit.getByTestId('job-sandbox').inputValue()).toBe('read-only');
    expect(await edit.getByTestId('job-max-turns').inputValue()).toBe('5');
    expect(await edit.getByTestId('job-allow-commands').inputValue()).toBe('gh issue list, gh issue edit');
    expect(await edit.getByTestId('schedule-kind').inputValue()).toBe('monthlyNth');
    await snap(page, 'schedules-7-agent-edit');
    await edit.getByTestId('job-max-turns').fill('8');
    await edit.getByTestId('schedule-submit').click();
    await edit.waitFor({ state: 'detached' });
    await card.getByTestId('schedule-edit').click();
    expect(await page.getByTestId('schedule-dialog').getByTestId('job-max-turns').inputValue()).toBe('8');
  });
});

describe('schedules on a driven clock', () => {
  const cleanups = useCleanups();

  it('"every minute" made in the builder runs three times as the clock passes three minutes', async (ctx) => {
    if (e2eTarget() === 'electron') ctx.skip('the clock is driven in a runtime in this process; the desktop app runs its own');
    // Half a minute before a whole minute, near today: the first slot is 30 s away.
    const clock = new ManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);
    const { page, home } = await openServedPage(cleanups, { homePrefix: 'wheelhouse-e2e-schedule-clock-', runtime: { jobClock: clock } });

    await page.getByTestId('open-jobs').click();
    await page.getByTestId('tab-schedules').click();
    await page.getByTestId('new-schedule').click();
    const dialog = page.getByTestId('schedule-dialog');
    await dialog.getByTestId('schedule-name').fill('Every minute');
    await dialog.getByTestId('folder-input').fill(home);
    await dialog.getByTestId('job-command').fill('echo tick');
    await dialog.getByTestId('schedule-kind').selectOption('everyMinutes');
    await dialog.getByTestId('schedule-count').fill('1');
    expect(await dialog.getByTestId('schedule-cron-text').innerText()).toBe('* * * * *');
    await dialog.getByTestId('schedule-submit').click();
    const card = page.getByTestId('schedule-card').filter({ hasText: 'Every minute' });
    await card.waitFor();

    const completed = card.locator('[data-outcome="completed"]');
    for (const runs of [1, 2, 3]) {
      // Each run ends before the next minute: the overlap policy (skip) never holds one back.
      clock.advance(runs === 1 ? 30_000 : 60_000);
      await expect.poll(() => completed.count(), { timeout: 30_000 }).toBe(runs);
    }
    expect(await card.locator('[data-outcome]').count()).toBe(3);
    await snap(page, 'schedules-8-three-runs');
  });
});
