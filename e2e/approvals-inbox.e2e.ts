import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { execCall, textReply } from '../test-support/agent-commands.js';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { waitUntil } from '../test-support/waiting.js';
import { blocking, runAxe } from './axe.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { createThread, sendMessage, waitForConnected } from './page-actions.js';

const shots = process.env['WHEELHOUSE_E2E_SCREENSHOTS'];

/** Waits until a file exists (a command the person approved ran). */
async function fileAppears(file: string): Promise<void> {
  await waitUntil(() => existsSync(file), { what: `${file} to appear`, intervalMs: 50 });
}

async function axeClean(page: Page): Promise<void> {
  expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
}

/** The Approvals inbox: two threads each wait on a command; the person answers them together, from one window or racing another. */
describe('the Approvals inbox', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  useFirstRunApp({ models: ['mock-coder'], folderPrefix: 'wheelhouse-e2e-inbox-' }, (parts) => ({ mock, app, folder } = parts));

  /** Two threads whose agents each ask to run a command; returns when both wait. */
  async function twoWaiting(page: Page): Promise<void> {
    await page.getByTestId('conversation-cwd').filter({ hasText: folder }).waitFor();
    mock.enqueue(execCall('touch one.txt', {}, 'call_one'));
    await sendMessage(page, 'Make file one');
    await page.getByTestId('approval-card').waitFor();
    await createThread(page);
    mock.enqueue(execCall('touch two.txt', {}, 'call_two'));
    await sendMessage(page, 'Make file two');
    await page.getByTestId('approval-card').waitFor();
    await page.getByTestId('approvals-badge').filter({ hasText: '2' }).waitFor();
  }

  it('counts both threads’ requests, lists them with their thread, and batch-approves both: both commands run', async () => {
    const { page } = app;
    await twoWaiting(page);
    // The inline card says what "Approve for this thread" would allow, before it is chosen.
    expect(await page.getByTestId('approval-scope').textContent()).toContain('Commands starting with touch two.txt in thread ‘Make file two’');
    if (shots) await page.screenshot({ path: path.join(shots, 'approval-card-scope.png') });

    await page.getByTestId('open-approvals').click();
    const rows = page.getByTestId('inbox-row');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain('Thread ‘Make file one’');
    expect(await rows.nth(0).textContent()).toContain('touch one.txt');
    expect(await rows.nth(0).textContent()).toContain(folder);
    expect(await rows.nth(1).textContent()).toContain('Thread ‘Make file two’');
    expect(await rows.nth(1).getByTestId('inbox-scope').textContent()).toContain('touch two.txt in thread ‘Make file two’');
    await axeClean(page);

    // Keyboard: Space checks the first row, Shift+Space on the second selects the range (both).
    await rows.nth(0).getByTestId('inbox-row-check').focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab'); // to the row's "Open thread"
    await rows.nth(1).getByTestId('inbox-row-check').focus();
    await page.keyboard.press('Shift+Space');
    await page.getByTestId('approvals-approve-selected').filter({ hasText: 'Approve 2' }).waitFor();
    if (shots) await page.screenshot({ path: path.join(shots, 'approvals-inbox.png') });
    await axeClean(page);

    mock.enqueue(textReply('Made one.'), textReply('Made two.'));
    await page.getByTestId('approvals-approve-selected').click();
    await page.getByTestId('approvals-empty').waitFor();
    expect(await page.getByTestId('approvals-badge').count()).toBe(0);
    await fileAppears(path.join(folder, 'one.txt'));
    await fileAppears(path.join(folder, 'two.txt'));
    if (shots) await page.screenshot({ path: path.join(shots, 'approvals-inbox-empty.png') });

    // After a reload the count is still right: nothing waits.
    await page.reload();
    await waitForConnected(page);
    await page.getByTestId('open-approvals').click();
    await page.getByTestId('approvals-empty').waitFor();
    expect(await page.getByTestId('approvals-badge').count()).toBe(0);
  });

  it('a request another window answers first leaves with a note; the batch answers the rest; grants show and revoke here', async (context) => {
    if (!app.openSecondClient) return context.skip('the Electron target cannot open a second client window');
    const { page } = app;
    await twoWaiting(page);
    const second = await app.openSecondClient();
    await waitForConnected(second);
    await second.getByTestId('approvals-badge').filter({ hasText: '2' }).waitFor();

    await page.getByTestId('open-approvals').click();
    await page.getByTestId('approvals-select-all').check();
    await page.getByTestId('approvals-approve-selected').filter({ hasText: 'Approve 2' }).waitFor();

    // The other window denies "touch one.txt" first.
    mock.enqueue(textReply('Not made.'), textReply('Made two.'));
    await second.getByTestId('open-approvals').click();
    await second.getByTestId('inbox-row').filter({ hasText: 'touch one.txt' }).getByTestId('inbox-decline').click();

    await page.getByTestId('approvals-note').filter({ hasText: 'touch one.txt' }).waitFor();
    expect(await page.getByTestId('approvals-note').textContent()).toContain('answered in another window');
    expect(await page.getByTestId('inbox-row').count()).toBe(1);
    await page.getByTestId('approvals-badge').filter({ hasText: '1' }).waitFor();
    await page.getByTestId('approvals-approve-selected').filter({ hasText: 'Approve 1' }).waitFor();
    if (shots) await page.screenshot({ path: path.join(shots, 'approvals-answered-elsewhere.png') });
    await axeClean(page);

    // Approve for this thread, from the inbox: the grant is listed here with Revoke, in both windows.
    await page.getByTestId('inbox-row').getByTestId('inbox-accept-thread').click();
    await fileAppears(path.join(folder, 'two.txt'));
    const grant = page.getByTestId('inbox-grant').filter({ hasText: 'touch two.txt' });
    await grant.waitFor();
    expect(await grant.textContent()).toContain('in thread ‘Make file two’, until Wheelhouse restarts');
    await second.getByTestId('inbox-grant').filter({ hasText: 'touch two.txt' }).waitFor();
    if (shots) await page.screenshot({ path: path.join(shots, 'approvals-grants.png') });
    await grant.getByRole('button', { name: /Revoke/ }).click();
    await grant.waitFor({ state: 'detached' });
    await second.getByTestId('inbox-grant').waitFor({ state: 'detached' });

    expect(existsSync(path.join(folder, 'one.txt'))).toBe(false);
    // A request answered elsewhere is a note, never an error.
    expect(await page.getByTestId('toast').count()).toBe(0);
  });

  it('a request type the window does not know still shows in the inbox, raw, and A on its row accepts it', async (context) => {
    if (app.target !== 'browser') return context.skip('needs the browser host’s WebSocket to stand in for a newer runtime');
    const { page } = app;
    await page.getByTestId('conversation-cwd').filter({ hasText: folder }).waitFor();
    mock.enqueue(textReply('Hello.'));
    await sendMessage(page, 'Say hello');
    await page.getByTestId('agent-message').filter({ hasText: 'Hello.' }).waitFor();
    const threadId = await page.getByTestId('conversation-pane').getAttribute('data-thread-id');

    // The window's link goes through a route that can speak as a newer runtime and reads the answers.
    const answers: unknown[] = [];
    let toPage: ((text: string) => void) | null = null;
    await page.routeWebSocket(/\/rpc/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((message) => {
        const text = String(message);
        const parsed = JSON.parse(text) as { id?: unknown; method?: unknown };
        if (parsed.id === 'newer-1' && parsed.method === undefined) answers.push(parsed);
        else server.send(text);
      });
      toPage = (text) => ws.send(text);
    });
    await page.reload();
    await waitForConnected(page);
    toPage!(JSON.stringify({ id: 'newer-1', method: 'item/permissions/requestApproval', params: { threadId, permissions: { network: true }, reason: 'fetch the docs' } }));

    await page.getByTestId('approvals-badge').filter({ hasText: '1' }).waitFor();
    await page.getByTestId('open-approvals').click();
    const row = page.getByTestId('inbox-row');
    await row.waitFor();
    expect(await row.textContent()).toContain('Thread ‘Say hello’');
    expect(await row.textContent()).toContain('item/permissions/requestApproval');
    expect(await row.textContent()).toContain('"reason": "fetch the docs"');
    await axeClean(page);
    if (shots) {
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: path.join(shots, 'approvals-unknown-request-dark.png') });
      await page.emulateMedia({ colorScheme: 'light' });
    }
    // A on the focused row accepts it.
    await row.getByTestId('inbox-row-check').focus();
    await page.keyboard.press('a');
    await page.getByTestId('approvals-empty').waitFor();
    await waitUntil(() => answers.length > 0, { what: 'the answer to the unknown request' });
    expect(answers).toEqual([{ id: 'newer-1', result: { decision: 'accept' } }]);
  });
});
