import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockModelServer, type MockModelServer } from '../test-support/mock-model/index.js';
import { blocking, runAxe } from './axe.js';
import type { WheelhouseApp } from './harness.js';
import { useLaunchedApp } from './launched-app.js';
import { sendMessage } from './page-actions.js';
import { snapBothSchemes } from './screenshots.js';

const KEY = 'sk-typed-in-the-window-7f3a9c';

async function expectAccessible(page: Page, screen: string): Promise<void> {
  const found = blocking(await runAxe(page));
  expect(found, `${screen}: ${JSON.stringify(found, null, 2)}`).toEqual([]);
}

/** Every file under the home whose bytes hold the key. */
function filesHolding(home: string, key: string): string[] {
  return readdirSync(home, { recursive: true, encoding: 'utf8' }).filter((entry) => {
    const file = path.join(home, entry);
    return statSync(file).isFile() && readFileSync(file).toString('latin1').includes(key);
  });
}

/**
 * A person who never opens a terminal, on a machine with no keychain: the
 * key is typed in the window, tested at once, kept in a file only they can
 * read, used by the next turn without a restart, and replaced the same way.
 */
describe('API keys typed in the window', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  beforeAll(async () => {
    // The mock answers only requests that carry this key: a reply proves the key was sent.
    mock = await startMockModelServer({ models: ['mock-coder'], apiKey: KEY });
  });
  afterAll(async () => {
    await mock?.close();
  });
  useLaunchedApp({ skipSetup: false, folderPrefix: 'wheelhouse-e2e-project-' }, (parts) => ({ app, folder } = parts));

  it('goes from a fresh home to a streamed reply with a key entered in the UI, and a new key works at once', async () => {
    const { page, home } = app;
    await page.getByTestId('setup-screen').waitFor();
    await page.getByTestId('provider-other').click();
    await page.getByTestId('provider-name').fill('Team gateway');
    await page.getByTestId('provider-base-url').fill(mock.url);
    // The key field is there even without a keychain, and says where the key will be kept.
    const storage = page.getByTestId('key-storage');
    expect(await storage.innerText()).toBe(`This computer has no keychain, so it is kept in a file only you can read: ${path.join(home, 'api-keys.json')}.`);

    // Without a key the gateway refuses: a key is missing, and the one action is "Edit key".
    await page.getByTestId('setup-test').click();
    const refused = page.locator('[data-testid="test-result"][data-ok="false"][data-kind="missingKey"]');
    await refused.waitFor();
    await snapBothSchemes(page, 'keys-1-refused');
    await expectAccessible(page, 'first run, key refused');
    await refused.getByTestId('test-action').click();
    const keyField = page.getByTestId('provider-api-key');
    expect(await keyField.evaluate((input) => input === document.activeElement)).toBe(true);
    await keyField.fill(KEY);
    mock.enqueue([{ type: 'text', text: 'ready' }, { type: 'finish' }]);
    await page.getByTestId('setup-test').click();
    await page.locator('[data-testid="test-result"][data-ok="true"]').waitFor();
    expect(mock.requests.at(-1)?.headers['authorization']).toBe(`Bearer ${KEY}`);
    await snapBothSchemes(page, 'keys-2-tested');
    // Tested, not saved: nothing holds the key yet.
    expect(filesHolding(home, KEY)).toEqual([]);

    await page.getByTestId('folder-input').fill(folder);
    await page.getByTestId('setup-start').click();
    await page.getByTestId('setup-screen').waitFor({ state: 'detached' });
    mock.enqueue([{ type: 'text', text: 'Hello from ' }, { type: 'text', text: 'the gateway.' }, { type: 'finish' }]);
    await sendMessage(page, 'Say hello');
    await page.getByTestId('agent-message').filter({ hasText: 'Hello from the gateway.' }).waitFor();
    const turnRequest = mock.requests.filter((r) => r.method === 'POST').at(-1);
    expect(turnRequest?.headers['authorization']).toBe(`Bearer ${KEY}`);

    // Kept in the private file only: not config.toml, not SQLite, not the logs.
    const keyFile = path.join(home, 'api-keys.json');
    expect(existsSync(keyFile)).toBe(true);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(filesHolding(home, KEY)).toEqual(['api-keys.json']);

    // A wrong key saved in Settings is used by the very next turn (no restart): refused, with "Edit key".
    await page.getByTestId('open-settings').click();
    await page.getByTestId('key-replace').click();
    await page.getByTestId('provider-api-key').fill('sk-wrong-key-000');
    await page.getByTestId('provider-save').click();
    await page.locator('[data-testid="provider-save-state"][data-saved="true"]').waitFor();
    await page.getByTestId('key-saved').waitFor();
    await snapBothSchemes(page, 'keys-3-settings-saved');
    await expectAccessible(page, 'settings, key saved');
    await page.getByTestId('setup-done').click();
    await page.getByTestId('setup-screen').waitFor({ state: 'detached' });
    await sendMessage(page, 'Again?');
    const card = page.locator('[data-testid="turn-error"][data-kind="unauthorized"]');
    await card.waitFor();
    expect(mock.requests.at(-1)?.headers['authorization']).toBe('Bearer sk-wrong-key-000');
    await snapBothSchemes(page, 'keys-4-turn-refused');
    await expectAccessible(page, 'conversation, key refused');

    // Edit key opens Settings on the key field; once saved, the card's one action becomes Retry.
    await card.getByTestId('turn-error-action').click();
    const field = page.getByTestId('provider-api-key');
    await field.waitFor();
    expect(await field.evaluate((input) => input === document.activeElement)).toBe(true);
    await field.fill(KEY);
    await page.getByTestId('provider-save').click();
    await page.locator('[data-testid="provider-save-state"][data-saved="true"]').waitFor();
    await page.getByTestId('setup-done').click();
    mock.enqueue([{ type: 'text', text: 'Back in business.' }, { type: 'finish' }]);
    await card.getByTestId('retry-turn').click();
    await page.getByTestId('agent-message').filter({ hasText: 'Back in business.' }).waitFor();
    expect(filesHolding(home, KEY)).toEqual(['api-keys.json']);
    expect(filesHolding(home, 'sk-wrong-key-000')).toEqual([]);
    expect(app.errors).toEqual([]);
  });
});
