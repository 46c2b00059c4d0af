import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { filesystemServerScript } from '../test-support/mcp-servers.js';
import { blocking, runAxe } from './axe.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { addMcpServer, sendMessage, waitForConnected } from './page-actions.js';

/**
 * MCP trust as a person meets it: a server added in Settings (no file
 * editing), the agent's call of a tool that writes waits on its card until
 * the person allows it (or declines it from the keyboard), the Approvals inbox
 * lists it, and "Always allow
 * this tool" shows as that tool's trust on the Connections page.
 */
describe('MCP tool approvals', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;
  const shots = process.env['WHEELHOUSE_E2E_SCREENSHOTS'];

  useFirstRunApp({ models: ['mock-coder'], readme: true }, (parts) => ({ mock, app, folder } = parts));

  it('adds a server in Settings; a writing tool call waits on its card until allowed; D declines; "always" trusts the tool', async () => {
    const { page } = app;
    await page.getByTestId('open-settings').click();
    const settings = page.getByTestId('settings-connections');
    await addMcpServer(settings, { name: 'files', command: process.execPath, args: `${filesystemServerScript}\n${folder}` });
    const server = settings.locator('[data-testid="mcp-server"][data-name="files"][data-state="ok"]');
    await server.waitFor({ timeout: 30_000 });
    await expect(server.getByTestId('mcp-approval-mode').inputValue()).resolves.toBe('auto');
    await expect(server.locator('.mcp-tool', { hasText: 'read_text_file' }).textContent()).resolves.toContain('read-only');
    await server.locator('.mcp-tool', { hasText: 'write_file' }).scrollIntoViewIfNeeded();
    if (shots) await page.screenshot({ path: path.join(shots, 'mcp-settings.png') });
    // The server was saved when it was added; Done only closes Settings.
    await page.getByTestId('setup-done').click();
    await page.getByTestId('setup-screen').waitFor({ state: 'detached' });

    const first = path.join(folder, 'allowed.txt');
    mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'w1', name: 'mcp__files__write_file', arguments: JSON.stringify({ path: first, content: 'allowed' }) }] }, { type: 'finish' }],
      [{ type: 'text', text: 'I wrote the file.' }, { type: 'finish' }],
    );
    await sendMessage(page, 'write a file');
    const waiting = page.locator('[data-testid="mcp-tool-call"][data-status="waiting"]');
    await waiting.waitFor({ timeout: 30_000 });
    const card = waiting.getByTestId('mcp-approval-card');
    await expect(card.textContent()).resolves.toContain('Allow the files MCP server to run tool "write_file"?');
    await expect(card.textContent()).resolves.toContain(first);
    expect(existsSync(first)).toBe(false);
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    if (shots) await page.screenshot({ path: path.join(shots, 'mcp-approval.png') });
    // A reloaded window gets the waiting approval again, once, in the call's place in the conversation.
    await page.reload();
    await waitForConnected(page);
    const again = waiting.getByTestId('mcp-approval-card');
    await again.waitFor({ timeout: 30_000 });
    await expect(again.textContent()).resolves.toContain(first);
    expect(await page.getByTestId('mcp-approval-card').count()).toBe(1);
    if (shots) await page.screenshot({ path: path.join(shots, 'mcp-approval-after-reload.png') });
    await again.getByTestId('mcp-approval-accept').click();
    await page.locator('[data-testid="mcp-tool-call"][data-status="completed"]').waitFor({ timeout: 30_000 });
    await page.getByText('I wrote the file.').waitFor();
    expect(readFileSync(first, 'utf8')).toBe('allowed');

    // "Always allow this tool": it runs, and the Connections page shows the tool trusted.
    const second = path.join(folder, 'always.txt');
    mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'w2', name: 'mcp__files__write_file', arguments: JSON.stringify({ path: second, content: 'always' }) }] }, { type: 'finish' }],
      [{ type: 'text', text: 'Written again.' }, { type: 'finish' }],
    );
    await sendMessage(page, 'write another');
    await page.getByTestId('mcp-approval-accept-always').click();
    await page.getByText('Written again.').waitFor({ timeout: 30_000 });
    expect(readFileSync(second, 'utf8')).toBe('always');

    // Declined from the keyboard: the call does not run, its card says why, and the turn goes on.
    const moved = path.join(folder, 'moved.txt');
    mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'm1', name: 'mcp__files__move_file', arguments: JSON.stringify({ source: first, destination: moved }) }] }, { type: 'finish' }],
      [{ type: 'text', text: 'Left it where it was.' }, { type: 'finish' }],
    );
    await sendMessage(page, 'move it');
    const moveCard = page.getByTestId('mcp-approval-card');
    await moveCard.waitFor({ timeout: 30_000 });
    // The Approvals inbox lists it with the other waiting requests.
    await page.getByTestId('open-approvals').click();
    const row = page.getByTestId('inbox-row');
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('Run move_file of MCP server files');
    if (shots) await page.screenshot({ path: path.join(shots, 'mcp-inbox.png') });
    await row.getByRole('button', { name: /^Open thread/ }).click();
    await moveCard.focus();
    await page.keyboard.press('d');
    await page.getByText('Left it where it was.').waitFor({ timeout: 30_000 });
    const declined = page.locator('[data-testid="mcp-tool-call"][data-status="failed"]', { hasText: 'move_file' });
    await declined.locator('.tool-call-head').click();
    await expect(declined.textContent()).resolves.toContain('user rejected MCP tool call');
    expect(existsSync(moved)).toBe(false);
    await page.getByTestId('open-connections').click();
    const trust = page.locator('[data-testid="mcp-server"][data-name="files"] .mcp-tool', { hasText: 'write_file' }).getByTestId('mcp-tool-trust');
    await expect(trust.getAttribute('aria-pressed')).resolves.toBe('true');
    if (shots) await page.screenshot({ path: path.join(shots, 'mcp-trusted-tool.png') });
    expect(app.errors).toEqual([]);
  });
});
