import { describe, expect, it } from 'vitest';
import { createGate, type MockModelServer } from '../test-support/mock-model/index.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { sendMessage, waitForConnected } from './page-actions.js';

/**
 * A person's first session: first run against a local OpenAI-compatible
 * server (the mock model), a streamed reply, Stop, a rejected key; the
 * conversation survives a reload.
 */
describe('talking to the agent', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  useFirstRunApp({ models: ['mock-coder', 'mock-large'], readme: true }, (parts) => ({ mock, app, folder } = parts));

  it('sets up, streams a reply with its usage, and keeps the conversation across a reload', async () => {
    const { page } = app;
    await page.getByTestId('conversation-cwd').filter({ hasText: folder }).waitFor();
    const gate = createGate();
    mock.enqueue([
      { type: 'reasoning', text: 'The person wants a summary.' },
      { type: 'text', text: 'First part of the answer, ' },
      { type: 'waitFor', release: gate.promise },
      { type: 'text', text: 'and the **end** of it.' },
      { type: 'finish', usage: { inputTokens: 1200, outputTokens: 34, cachedInputTokens: 800 } },
    ]);
    await sendMessage(page, 'Summarise this project');
    await page.getByTestId('user-message').filter({ hasText: 'Summarise this project' }).waitFor();

    // The reply shows while it is still streaming: the first half is on screen, the end is not.
    const reply = page.getByTestId('agent-message');
    await reply.filter({ hasText: 'First part of the answer' }).waitFor();
    expect(await reply.getAttribute('data-streaming')).toBe('true');
    expect(await reply.textContent()).not.toContain('end of it');
    await page.getByTestId('stop-button').waitFor();

    // Keyboard focus in the model picker stays put when the composer re-renders (the turn ending).
    await page.getByTestId('model-picker').click();
    await page.getByTestId('model-option').nth(1).waitFor();
    await page.keyboard.press('ArrowDown');
    const focusedOption = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') + ':' + document.activeElement?.textContent);
    const focused = await focusedOption();
    expect(focused).toContain('mock-large');

    gate.release();
    await reply.filter({ hasText: 'and the end of it.' }).waitFor();
    await page.getByTestId('send-button').waitFor();
    expect(await focusedOption()).toBe(focused);
    await page.keyboard.press('Escape');
    expect(await reply.locator('strong').textContent()).toBe('end');
    const usage = page.getByTestId('turn-usage');
    await usage.waitFor();
    expect(await usage.textContent()).toBe('1,234 tokens · 800 cached (67%)');
    await page.getByTestId('send-button').waitFor();
    // The model received the user's message.
    expect(mock.requests.at(-1)?.rawBody).toContain('Summarise this project');

    await page.reload();
    await waitForConnected(page);
    await page.getByTestId('user-message').filter({ hasText: 'Summarise this project' }).waitFor();
    await page.getByTestId('agent-message').filter({ hasText: 'and the end of it.' }).waitFor();
    await page.getByTestId('turn-usage').filter({ hasText: '1,234 tokens' }).waitFor();
    expect(await page.getByTestId('setup-screen').count()).toBe(0);
    expect(app.errors).toEqual([]);
  });

  it('stops a reply mid-stream and says so', async () => {
    const { page } = app;
    const gate = createGate();
    const longText = Array.from({ length: 60 }, (_, i) => `Paragraph ${i} of the notes.`).join('\n\n');
    mock.enqueue([
      { type: 'text', text: `Working through the files\n\n${longText}` },
      { type: 'waitFor', release: gate.promise },
      { type: 'finish' },
    ]);
    await sendMessage(page, 'Read everything');
    await page.getByTestId('agent-message').filter({ hasText: 'Paragraph 59 of the notes.' }).waitFor();

    // Scrolling the conversation (as following a streaming reply does) leaves the header's "…" menu open.
    await page.getByTestId('conversation-menu').click();
    await page.getByRole('menu').waitFor();
    const scrolled = await page.getByTestId('message-list').evaluate(
      (list) =>
        new Promise<boolean>((resolve) => {
          if (list.scrollTop === 0) return resolve(false);
          list.addEventListener('scroll', () => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))), { once: true });
          list.scrollTop = 0;
        }),
    );
    expect(scrolled).toBe(true);
    expect(await page.getByRole('menu').count()).toBe(1);
    await page.keyboard.press('Escape');

    await page.getByTestId('stop-button').click();
    await page.getByTestId('turn-stopped').waitFor();
    await page.getByTestId('send-button').waitFor();
    // The partial reply stays, saying it was cut off.
    await page.getByTestId('agent-message').filter({ hasText: 'Working through the files' }).waitFor();
    await page.getByTestId('agent-message').getByTestId('message-incomplete').waitFor();
    gate.release();
    expect(app.errors).toEqual([]);
  });

  it('shows a refused request as an error in the conversation, with Retry', async () => {
    const { page } = app;
    mock.enqueue([{ type: 'httpError', status: 400, message: 'The request was refused.' }]);
    await sendMessage(page, 'Hello?');
    const error = page.getByTestId('turn-error');
    await error.waitFor();
    expect(await error.getAttribute('data-kind')).toBe('other');
    expect(await page.getByTestId('turn-error-message').textContent()).toContain('The request was refused.');

    // Retry sends the same text again as a new turn, in place of the failed one (the message shows once).
    mock.enqueue([{ type: 'text', text: 'Hello! The key works now.' }, { type: 'finish' }]);
    await page.getByTestId('retry-turn').click();
    await page.getByTestId('agent-message').filter({ hasText: 'The key works now.' }).waitFor();
    expect(await page.getByTestId('user-message').filter({ hasText: 'Hello?' }).count()).toBe(1);
    expect(await page.getByTestId('turn-error').count()).toBe(0);
    expect(app.errors).toEqual([]);
  });
});
