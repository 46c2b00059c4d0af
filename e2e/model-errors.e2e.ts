import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockModelServer, type MockModelServer, type MockScript } from '../test-support/mock-model/index.js';
import { blocking, runAxe } from './axe.js';
import { launchWheelhouse, type WheelhouseApp } from './harness.js';
import { sendMessage, waitForConnected } from './page-actions.js';
import { snapBothSchemes } from './screenshots.js';

/** One cause as the mock model gives it, and what the card must say and offer. */
interface Cause {
  readonly kind: string;
  readonly script: MockScript;
  readonly title: string;
  readonly message: RegExp;
  /** The card's one action: its test id and label. */
  readonly action: { readonly testId: string; readonly label: string };
}

// A Retry-After beyond what Wheelhouse waits makes 429 and 5xx fail at once instead of being retried.
const CAUSES: readonly Cause[] = [
  {
    kind: 'unauthorized',
    script: [{ type: 'httpError', status: 401 }],
    title: 'The provider refused the API key',
    message: /refused the API key\. Enter a valid key/,
    action: { testId: 'turn-error-action', label: 'Edit key' },
  },
  {
    kind: 'modelNotFound',
    script: [{ type: 'httpError', status: 404, message: 'The model `mock-coder` does not exist.', code: 'model_not_found' }],
    title: 'The provider has no such model',
    message: /no model called “mock-coder”\. Choose another model\./,
    action: { testId: 'turn-error-action', label: 'Open settings' },
  },
  {
    kind: 'rateLimited',
    script: [{ type: 'httpError', status: 429, retryAfter: '3600' }],
    title: 'Too many requests for now',
    message: /rate limiting requests/,
    action: { testId: 'retry-turn', label: 'Retry' },
  },
  {
    kind: 'quotaExceeded',
    script: [{ type: 'httpError', status: 402, message: 'Insufficient Balance' }],
    title: 'The account is out of credit',
    message: /no credit or quota left/,
    action: { testId: 'turn-error-action', label: 'Edit key' },
  },
  {
    kind: 'serverError',
    script: [{ type: 'httpError', status: 503, retryAfter: '3600' }],
    title: 'The provider had a problem',
    message: /server error/,
    action: { testId: 'retry-turn', label: 'Retry' },
  },
];

/**
 * One failure per cause, each shown in one sentence with the one action that
 * helps. They share one app, in order: the last two change the setup (the
 * key removed, then the server gone).
 */
describe('model errors in the conversation, one per cause', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  beforeAll(async () => {
    mock = await startMockModelServer({ models: ['mock-coder'] });
    folder = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-project-'));
    app = await launchWheelhouse();
    const { page } = app;
    await waitForConnected(page);
    await page.getByTestId('provider-other').click();
    await page.getByTestId('provider-name').fill('Local mock');
    await page.getByTestId('provider-base-url').fill(mock.url);
    await page.getByTestId('provider-api-key').fill('sk-mock-key');
    await page.getByTestId('folder-input').fill(folder);
    await page.getByTestId('setup-start').click();
    await page.getByTestId('setup-screen').waitFor({ state: 'detached' });
    await page.locator('[data-testid="conversation-pane"][data-thread-id]').waitFor();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await mock?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  /** Sends a message and returns its error card (each cause shows once; the list may unmount older rows, so no counting). */
  async function failWith(kind: string, text: string) {
    const { page } = app;
    await sendMessage(page, text);
    const card = page.locator(`[data-testid="turn-error"][data-kind="${kind}"]`);
    await card.waitFor();
    return card;
  }

  /** The card's buttons other than Details: exactly the one action. */
  async function actionsOf(card: Locator): Promise<string[]> {
    const labels = await card.locator('.turn-error-actions button').allInnerTexts();
    return labels.map((label) => label.trim()).filter((label) => label !== 'Details');
  }

  it.each(CAUSES)('$kind', async (cause) => {
    const { page } = app;
    mock.enqueue(cause.script);
    const card = await failWith(cause.kind, `Cause: ${cause.kind}`);
    expect(await card.locator('.turn-error-title').innerText()).toBe(cause.title);
    expect(await card.getByTestId('turn-error-message').innerText()).toMatch(cause.message);
    expect(await actionsOf(card)).toEqual([cause.action.label]);
    await card.getByTestId(cause.action.testId).waitFor();
    await snapBothSchemes(page, `error-${cause.kind}`);
    const found = blocking(await runAxe(page));
    expect(found, JSON.stringify(found, null, 2)).toEqual([]);
    expect(app.errors).toEqual([]);
  });

  it('missingKey: a removed key is asked for, and Edit key opens the key field', async () => {
    const { page } = app;
    await page.getByTestId('open-settings').click();
    await page.getByTestId('key-remove').click();
    await page.getByTestId('provider-api-key').waitFor();
    await page.getByTestId('setup-done').click();
    await page.getByTestId('setup-screen').waitFor({ state: 'detached' });
    mock.enqueue([{ type: 'httpError', status: 401 }]);
    const card = await failWith('missingKey', 'Cause: missing key');
    expect(await card.locator('.turn-error-title').innerText()).toBe('No API key yet');
    expect(await actionsOf(card)).toEqual(['Edit key']);
    await snapBothSchemes(page, 'error-missingKey');
    await card.getByTestId('turn-error-action').click();
    const field = page.getByTestId('provider-api-key');
    await field.waitFor();
    expect(await field.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.press('Escape');
    await page.getByTestId('setup-screen').waitFor({ state: 'detached' });
    expect(app.errors).toEqual([]);
  });

  it('cannotConnect: a server that is down is named with its address and offers Retry, not Settings', async () => {
    const { page } = app;
    const address = mock.url;
    await mock.close();
    const card = await failWith('cannotConnect', 'Cause: server down');
    expect(await card.locator('.turn-error-title').innerText()).toBe('Could not reach the model server');
    const message = await card.getByTestId('turn-error-message').innerText();
    expect(message).toBe(`Could not connect to ${address} (the connection was refused). Check that the server is running and the address is right.`);
    expect(message).not.toMatch(/needs setting up|Choose a model/);
    expect(await actionsOf(card)).toEqual(['Retry']);
    await snapBothSchemes(page, 'error-cannotConnect');
    const found = blocking(await runAxe(page));
    expect(found, JSON.stringify(found, null, 2)).toEqual([]);
    expect(app.errors).toEqual([]);
  });
});
