import { blocking, runAxe } from './axe.js';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { everythingServerScript } from '../test-support/mcp-servers.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { addMcpServer, sendMessage } from './page-actions.js';

/**
 * Connections: a person adds MCP servers from the UI (no file editing), sees
 * one come up with its tools and a broken one fail with its reason and a
 * sidebar badge, and sees the agent's MCP tool call as a card.
 */
describe('MCP connections', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  const shots = process.env['WHEELHOUSE_E2E_SCREENSHOTS'];

  useFirstRunApp({ models: ['mock-coder'], readme: true }, (parts) => ({ mock, app } = parts));

  it('adds servers from the UI, shows ready and failed states, and draws the agent’s MCP call as a card', async () => {
    const { page } = app;
    await page.getByTestId('open-connections').click();
    await page.getByTestId('connections-page').waitFor();

    await addMcpServer(page, { name: 'everything', command: process.execPath, args: everythingServerScript });
    const ready = page.locator('[data-testid="mcp-server"][data-name="everything"][data-state="ok"]');
    await ready.waitFor({ timeout: 30_000 });
    await expect(ready.getByText('echo', { exact: true }).count()).resolves.toBe(1);

    await addMcpServer(page, { name: 'broken', command: '/nonexistent/mcp-server' });
    const failed = page.locator('[data-testid="mcp-server"][data-name="broken"][data-state="failed"]');
    await failed.waitFor({ timeout: 30_000 });
    await expect(failed.getByTestId('mcp-server-error').textContent()).resolves.toContain('command not found');
    await page.getByTestId('connections-badge').waitFor();
    if (shots) await page.screenshot({ path: path.join(shots, 'connections.png') });

    await failed.getByRole('button', { name: 'Disable' }).click();
    await page.locator('[data-testid="mcp-server"][data-name="broken"][data-state="off"]').waitFor();
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    await page.getByTestId('connections-badge').waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Close Connections' }).click();
    mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'c1', name: 'mcp__everything__get-tiny-image', arguments: '{}' }] }, { type: 'finish' }],
      [{ type: 'text', text: 'Here is the image.' }, { type: 'finish' }],
    );
    await sendMessage(page, 'show me an image');
    const card = page.locator('[data-testid="mcp-tool-call"][data-status="completed"]');
    await card.waitFor({ timeout: 30_000 });
    await card.locator('.tool-call-head').click();
    await card.locator('img.mcp-image').waitFor();
    await page.getByText('Here is the image.').waitFor();
    if (shots) await page.screenshot({ path: path.join(shots, 'mcp-tool-call.png') });
    expect(app.errors).toEqual([]);
  });
});
