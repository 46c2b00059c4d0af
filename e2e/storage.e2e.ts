import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { axeProblems } from './axe.js';
import { shootBothSchemes } from './screenshots.js';
import { openServedPage, useCleanups } from './served-page.js';

const cleanups = useCleanups();

describe('Settings → Storage', () => {
  it('says how much Wheelhouse uses and saves a budget in config.toml', async () => {
    const { page, home } = await openServedPage(cleanups);
    await page.getByTestId('open-settings').click();
    const section = page.getByTestId('storage-section');
    await section.scrollIntoViewIfNeeded();
    await expect.poll(() => page.getByTestId('storage-usage').textContent()).toMatch(/^Wheelhouse uses (< 1|\d+) MB\./);
    const days = page.getByTestId('budget-maxAgeDays').locator('input');
    expect(await days.inputValue()).toBe('30');
    expect(await axeProblems(page)).toEqual([]);
    await shootBothSchemes(page, 'lean', 'settings-storage', section);

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
