import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RpcClient } from '../shared/protocol/client.js';
import { axeProblems } from './axe.js';
import { e2eTarget } from './harness.js';
import { createThread, waitForConnected } from './page-actions.js';
import { shootBothSchemes } from './screenshots.js';
import { openServedPage, useCleanups } from './served-page.js';

const cleanups = useCleanups();

/** A page on a runtime in this process, and a second client of that runtime that acts "elsewhere". */
async function open(): Promise<{ page: Page; other: RpcClient; home: string }> {
  const { page, runtime, home } = await openServedPage(cleanups);
  return { page, other: await runtime.client(), home };
}

/** The toasts on screen now, as "kind: message / detail". */
async function toasts(page: Page): Promise<string[]> {
  return page.getByTestId('toast').evaluateAll((cards) =>
    cards.map((card) => `${card.getAttribute('data-kind')}: ${Array.from(card.querySelectorAll('p'), (p) => p.textContent).join(' / ')}`),
  );
}

/** Resolves when `jobId` has failed for good (its last job/updated says no retry is left). */
function failedForGood(other: RpcClient, jobId: string): Promise<void> {
  return new Promise((resolve) => {
    const off = other.on('job/updated', ({ job }) => {
      if (job.id === jobId && job.status === 'failed' && job.nextRetryAt === null) {
        off();
        resolve();
      }
    });
  });
}

describe('notices in the window', () => {
  beforeEach((ctx) => {
    if (e2eTarget() === 'electron') ctx.skip('a second client acts on the same runtime here; the desktop app trusts its one window');
  });

  it('a job elsewhere that finishes, or fails for good, shows one toast whose Open goes to it; a reload shows none again', async () => {
    const { page, other, home } = await open();
    await createThread(page);
    await page.bringToFront();

    const { job: built } = await other.request('job/create', { kind: 'command', name: 'nightly build', command: 'echo built', cwd: home });
    const finished = page.getByTestId('toast').filter({ hasText: 'Finished: nightly build' });
    await finished.waitFor();
    expect(await finished.getAttribute('data-kind')).toBe('done');

    // Two runs fail; only the second is for good (one automatic retry): one toast, no "will retry" one.
    const { job: flaky } = await other.request('job/create', { kind: 'command', name: 'flaky tests', command: 'exit 3', cwd: home, maxAttempts: 1 });
    await failedForGood(other, flaky.id);
    const failed = page.getByTestId('toast').filter({ hasText: 'Failed: flaky tests' });
    await failed.waitFor();
    expect(await failed.getAttribute('data-count')).toBe('1');
    expect((await toasts(page)).filter((toast) => /flaky/.test(toast))).toEqual(['error: Failed: flaky tests / Exited with code 3. It was tried 2 times.']);
    expect(await axeProblems(page)).toEqual([]);
    await shootBothSchemes(page, 'desktop-shell', 'toasts', page.locator('.toast-viewport'));

    await finished.getByRole('button', { name: 'Open' }).click();
    await page.getByTestId('job-page').filter({ hasText: built.name }).waitFor();

    await page.reload();
    await waitForConnected(page);
    await page.getByTestId('new-thread').waitFor();
    expect(await toasts(page)).toEqual([]);
  });

  it('Settings turns a kind off (saved in config.toml) and then its toast stays away', async () => {
    const { page, other, home } = await open();
    await page.getByTestId('open-settings').click();
    const section = page.getByTestId('notifications-section');
    await section.scrollIntoViewIfNeeded();
    expect(await section.locator('input[type="checkbox"]').evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).checked))).toEqual([true, true, true]);
    // A browser asks for its permission from a click, never on its own.
    expect(await page.getByTestId('notification-permission').getAttribute('data-permission')).toBe('default');
    expect(await axeProblems(page)).toEqual([]);
    await shootBothSchemes(page, 'desktop-shell', 'settings-notifications', section);

    const finishedBox = page.getByTestId('notify-jobFinished').locator('input');
    await finishedBox.uncheck();
    await expect.poll(() => finishedBox.isChecked()).toBe(false);
    // The switch moves with the click; the file follows once the write is done.
    await expect.poll(() => readFile(path.join(home, 'config.toml'), 'utf8')).toMatch(/\[wheelhouse\.notifications\]\s*\njob_finished = false/);
    await expect.poll(() => finishedBox.isEnabled()).toBe(true);
    await page.getByTestId('setup-close').click();

    await createThread(page);
    const { job } = await other.request('job/create', { kind: 'command', name: 'quiet build', command: 'echo built', cwd: home });
    await new Promise<void>((resolve) => {
      const off = other.on('job/updated', ({ job: updated }) => {
        if (updated.id === job.id && updated.status === 'completed') {
          off();
          resolve();
        }
      });
    });
    // A failure still shows (its kind is on): by then the finished job would have shown too.
    const { job: broken } = await other.request('job/create', { kind: 'command', name: 'broken', command: 'exit 1', cwd: home, maxAttempts: 0 });
    await failedForGood(other, broken.id);
    await page.getByTestId('toast').filter({ hasText: 'Failed: broken' }).waitFor();
    expect((await toasts(page)).some((toast) => toast.includes('quiet build'))).toBe(false);
  });
});
