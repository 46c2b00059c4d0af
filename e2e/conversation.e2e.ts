import { describe, expect, it } from 'vitest';
import { createGate, type MockModelServer } from '../test-support/mock-model/index.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { createThread, pasteText, sendMessage, waitForConnected } from './page-actions.js';

/** The rough edges a new user meets in a conversation and the sidebar. */
describe('conversation and sidebar', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;

  useFirstRunApp({ models: ['mock-coder'] }, (parts) => ({ mock, app } = parts));

  it('fills the composer from a suggestion, folds a 200 KB message, and marks a fork in the sidebar', async () => {
    const { page } = app;
    const suggestion = page.getByTestId('suggestion').first();
    const text = (await suggestion.innerText()).trim();
    await suggestion.click();
    const composer = page.getByTestId('composer-input');
    expect(await composer.inputValue()).toBe(text);
    expect(await composer.evaluate((el) => el === document.activeElement)).toBe(true);

    const long = Array.from({ length: 2_600 }, (_, i) => `Line ${i} of a pasted log with some words in it.`).join('\n').padEnd(200_000, '.');
    mock.enqueue([{ type: 'text', text: 'That is a long log.' }, { type: 'finish' }]);
    // Replaces the suggestion, as a person who selects it all and pastes a log would.
    await composer.selectText();
    await pasteText(composer, long);
    expect(await composer.inputValue()).toBe(long);
    await composer.press('Enter');
    await page.getByTestId('agent-message').filter({ hasText: 'That is a long log.' }).waitFor();
    const message = page.getByTestId('user-message');
    expect(await message.getAttribute('data-folded')).toBe('true');
    expect((await message.boundingBox())!.height).toBeLessThan(450);
    const toggle = page.getByTestId('user-message-toggle');
    expect(await toggle.innerText()).toMatch(/^Show all \(2,600 lines/);
    await toggle.click();
    expect(await message.getAttribute('data-folded')).toBeNull();
    expect(await toggle.innerText()).toBe('Show less');

    await page.getByTestId('conversation-menu').click();
    await page.getByTestId('fork-thread').click();
    const forkRow = page.locator('[data-testid="thread-row"]', { has: page.getByTestId('thread-fork-mark') });
    await forkRow.waitFor();
    expect(await page.getByTestId('thread-fork-mark').count()).toBe(1);
    expect(app.errors).toEqual([]);
  });

  it('offers Continue after a stopped turn, in the conversation and the thread menu', async () => {
    const { page } = app;
    const gate = createGate();
    mock.enqueue([{ type: 'text', text: 'Reading the first files' }, { type: 'waitFor', release: gate.promise }, { type: 'finish' }]);
    await sendMessage(page, 'Read everything');
    await page.getByTestId('agent-message').filter({ hasText: 'Reading the first files' }).waitFor();
    await page.getByTestId('stop-button').click();
    await page.getByTestId('turn-stopped').waitFor();
    gate.release();

    await page.getByTestId('conversation-menu').click();
    await page.getByTestId('continue-thread').waitFor();
    await page.keyboard.press('Escape');

    mock.enqueue([{ type: 'text', text: 'Picking up again.' }, { type: 'finish' }]);
    await page.getByTestId('continue-turn').click();
    await page.getByTestId('agent-message').filter({ hasText: 'Picking up again.' }).waitFor();
    await page.getByTestId('user-message').filter({ hasText: 'Continue where you left off.' }).waitFor();
    expect(await page.getByTestId('continue-turn').count()).toBe(0);
    expect(app.errors).toEqual([]);
  });

  it('keeps the thread order and "Show archived" across a reload', async () => {
    const { page } = app;
    for (let i = 0; i < 4; i++) await createThread(page);
    await page.getByTestId('show-archived').click();
    expect(await page.getByTestId('show-archived').getAttribute('aria-pressed')).toBe('true');
    const order = () => page.getByTestId('thread-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-thread-id')));
    const before = await order();
    expect(before.length).toBeGreaterThanOrEqual(5);

    await page.reload();
    await waitForConnected(page);
    await expect.poll(order).toEqual(before);
    expect(await page.getByTestId('show-archived').getAttribute('aria-pressed')).toBe('true');
    expect(app.errors).toEqual([]);
  });
});
