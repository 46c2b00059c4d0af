import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { sendMessage } from './page-actions.js';

/** Errors that have a place in the conversation show there, once, with the action that helps. */
describe('errors in the conversation', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  useFirstRunApp({ models: ['mock-coder'], readme: true }, (parts) => ({ mock, app, folder } = parts));

  it('shows a spent goal budget in one place with its action, and disables the composer saying why', async () => {
    const { page } = app;
    await page.getByTestId('goal-button').click();
    await page.getByTestId('goal-objective').fill('Summarise the project');
    await page.getByTestId('goal-budget').fill('40');
    await page.getByTestId('goal-save').click();
    await page.getByTestId('goal-editor').waitFor({ state: 'detached' });

    mock.enqueue([{ type: 'text', text: 'A long answer' }, { type: 'finish', usage: { inputTokens: 30, outputTokens: 15 } }]);
    await sendMessage(page, 'Go');
    const banner = page.getByTestId('goal-banner');
    await banner.waitFor();

    // One place for the budget state: the banner; the turn only says why it stopped.
    expect(await page.getByTestId('turn-error').count()).toBe(0);
    await page.getByTestId('turn-stopped').filter({ hasText: 'goal’s token budget' }).waitFor();
    expect(await page.getByTestId('composer-input').isDisabled()).toBe(true);
    expect(await page.getByTestId('composer-hint').innerText()).toContain('budget is used up');
    expect(await page.getByTestId('toast').count()).toBe(0);

    await banner.getByRole('button', { name: 'Raise budget' }).click();
    await page.getByTestId('goal-editor').waitFor();
    await page.getByTestId('goal-budget').fill('10k');
    await page.getByTestId('goal-save').click();
    await banner.waitFor({ state: 'detached' });
    expect(await page.getByTestId('composer-input').isDisabled()).toBe(false);
    expect(app.errors).toEqual([]);
  });

  it('shows a repeated request error as one toast that stays clear of the composer and goes away by itself', async () => {
    const { page } = app;
    // New thread starts in the open thread's folder; once that is gone, the runtime refuses it.
    await rm(folder, { recursive: true, force: true });
    await page.getByTestId('new-thread').click();
    // The dialog stays open while starting fails, so each click asks again.
    for (let i = 0; i < 3; i++) await page.getByTestId('new-thread-start').click();
    const toast = page.getByTestId('toast');
    await toast.getByTestId('toast-count').filter({ hasText: '×3' }).waitFor();
    expect(await toast.count()).toBe(1);
    expect(await toast.getAttribute('data-kind')).toBe('error');
    expect(await toast.locator('.toast-message').innerText()).toContain('does not exist any more. Choose another project folder in Settings.');
    await toast.getByRole('button', { name: 'Open Settings' }).waitFor();
    await page.getByTestId('new-thread-start').press('Escape');
    await page.getByTestId('new-thread-dialog').waitFor({ state: 'detached' });

    const toastBox = (await toast.boundingBox())!;
    const composerBox = (await page.locator('.composer-dock').boundingBox())!;
    const overlaps =
      toastBox.x < composerBox.x + composerBox.width &&
      composerBox.x < toastBox.x + toastBox.width &&
      toastBox.y < composerBox.y + composerBox.height &&
      composerBox.y < toastBox.y + toastBox.height;
    expect(overlaps).toBe(false);

    await page.mouse.move(0, 0);
    await toast.waitFor({ state: 'detached', timeout: 20_000 });
  });

  it('retries a failed message without showing it twice, and an older error card cannot be retried', async () => {
    const { page } = app;
    mock.enqueue([{ type: 'httpError', status: 400, message: 'The request was refused.' }]);
    await sendMessage(page, 'Hello?');
    await page.getByTestId('turn-error').waitFor();
    mock.enqueue([{ type: 'httpError', status: 400, message: 'The request was refused.' }]);
    await sendMessage(page, 'Anyone there?');
    const cards = page.getByTestId('turn-error');
    await expect.poll(() => cards.count()).toBe(2);
    const retries = page.getByTestId('retry-turn');
    await expect.poll(() => retries.nth(1).isEnabled()).toBe(true);
    expect(await retries.nth(0).isDisabled()).toBe(true);

    mock.enqueue([{ type: 'text', text: 'Hello! It works now.' }, { type: 'finish' }]);
    await retries.nth(1).click();
    await page.getByTestId('agent-message').filter({ hasText: 'It works now.' }).waitFor();
    expect(await page.getByTestId('user-message').filter({ hasText: 'Anyone there?' }).count()).toBe(1);
    expect(await page.getByTestId('user-message').filter({ hasText: 'Hello?' }).count()).toBe(1);
    expect(await cards.count()).toBe(1);
    expect(app.errors).toEqual([]);
  });
});
