import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockModelServer, type MockModelServer } from '../test-support/mock-model/index.js';
import type { WheelhouseApp } from './harness.js';
import { useLaunchedApp } from './launched-app.js';
import { completeFirstRun, waitForConnected } from './page-actions.js';

describe('first run', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  beforeAll(async () => {
    mock = await startMockModelServer({ models: ['mock-coder'] });
  });
  afterAll(async () => {
    await mock?.close();
  });
  useLaunchedApp({ skipSetup: false, folderPrefix: 'wheelhouse-e2e-project-' }, (parts) => ({ app, folder } = parts));

  it('tests a connection without saving it; Start saves', async () => {
    const { page } = app;
    await page.getByTestId('setup-screen').waitFor();
    await page.getByTestId('provider-other').click();
    await page.getByTestId('provider-name').fill('Mock provider');
    await page.getByTestId('provider-base-url').fill(mock.url);
    mock.enqueue([{ type: 'text', text: 'ready' }, { type: 'finish' }]);
    await page.getByTestId('setup-test').click();
    await page.locator('[data-testid="test-result"][data-ok="true"]').waitFor();

    // Nothing was saved: after a reload first run is still there, on the built-in default.
    await page.reload();
    await waitForConnected(page);
    await page.getByTestId('setup-screen').waitFor();
    expect(await page.getByTestId('provider-other').getAttribute('aria-checked')).toBe('false');

    mock.enqueue([{ type: 'text', text: 'ready' }, { type: 'finish' }]);
    await completeFirstRun(page, { baseUrl: mock.url, folder });
    await page.reload();
    await waitForConnected(page);
    await page.getByTestId('conversation-pane').waitFor();
    expect(await page.getByTestId('setup-screen').count()).toBe(0);
    expect(app.errors).toEqual([]);
  });
});
