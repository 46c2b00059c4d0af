import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockModelServer, type MockModelServer } from '../test-support/mock-model/index.js';
import { launchWheelhouse, type WheelhouseApp } from './harness.js';
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
  beforeEach(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-project-'));
    app = await launchWheelhouse();
    await waitForConnected(app.page);
  });
  afterEach(async () => {
    await app?.close();
    await rm(folder, { recursive: true, force: true });
  });

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
