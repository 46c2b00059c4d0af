import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGate, type MockModelServer } from '../test-support/mock-model/index.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { createThread, sendMessage, threadRow } from './page-actions.js';

/**
 * Queued messages: while the agent works, a person queues two follow-ups,
 * changes their order (by drag and by keyboard), and sees them run in that order.
 */
describe('queued messages', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  useFirstRunApp({ folderPrefix: 'wheelhouse-e2e-queue-' }, (parts) => ({ mock, app, folder } = parts));

  it('queues two messages during a turn, reorders them, and runs them in the new order', async () => {
    const { page } = app;
    const gate = createGate();
    mock.enqueue(
      [{ type: 'text', text: 'Working on it' }, { type: 'waitFor', release: gate.promise }, { type: 'finish' }],
      [{ type: 'text', text: 'Reply to the second.' }, { type: 'finish' }],
      [{ type: 'text', text: 'Reply to the first.' }, { type: 'finish' }],
    );
    await sendMessage(page, 'Start the long job');
    await page.getByTestId('stop-button').waitFor();
    const before = mock.requests.length;

    const input = page.getByTestId('composer-input');
    await input.fill('First follow-up');
    await page.getByTestId('queue-button').click();
    await input.fill('Second follow-up');
    await input.press('Alt+Enter');

    const cards = page.getByTestId('queue-card');
    const texts = () => page.getByTestId('queue-text').allTextContents();
    await cards.nth(1).waitFor();
    expect(await texts()).toEqual(['First follow-up', 'Second follow-up']);
    const selectedRow = page.locator('[data-testid="thread-row"][data-selected]');
    await selectedRow.getByTestId('thread-queued-count').filter({ hasText: '2' }).waitFor();

    // Drag the second card above the first.
    await cards.nth(1).dragTo(cards.nth(0));
    await page.getByTestId('queue-text').first().filter({ hasText: 'Second follow-up' }).waitFor();
    expect(await texts()).toEqual(['Second follow-up', 'First follow-up']);

    // The keyboard does the same from a card's handle, and keeps focus on the moved card.
    await cards.nth(1).locator('.queue-handle').focus();
    await page.keyboard.press('ArrowUp');
    await page.getByTestId('queue-text').first().filter({ hasText: 'First follow-up' }).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.getByTestId('queue-text').first().filter({ hasText: 'Second follow-up' }).waitFor();
    expect(await texts()).toEqual(['Second follow-up', 'First follow-up']);
    expect(await page.evaluate(() => document.activeElement?.closest('[data-queued-id]')?.textContent)).toContain('First follow-up');

    // Edit the second card before it runs: Enter saves.
    await cards.nth(1).getByRole('button', { name: 'Edit queued message' }).click();
    const editor = page.getByRole('textbox', { name: /Edit queued message/ });
    await editor.fill('First follow-up, edited');
    await editor.press('Enter');
    await page.getByTestId('queue-text').filter({ hasText: 'First follow-up, edited' }).waitFor();

    const shots = process.env.WHEELHOUSE_E2E_SCREENSHOTS;
    if (shots) await page.screenshot({ path: path.join(shots, 'queue-reordered.png') });

    gate.release();
    const users = page.getByTestId('user-message');
    await page.getByTestId('agent-message').filter({ hasText: 'Reply to the first.' }).waitFor();
    expect(await users.allTextContents()).toEqual(['Start the long job', 'Second follow-up', 'First follow-up, edited']);
    // The model saw the second follow-up first, on its own, and the first one after it.
    const followUps = mock.requests.slice(before).map((r) => r.rawBody).filter((body) => body.includes('follow-up'));
    expect(followUps).toHaveLength(2);
    expect(followUps[0]).toContain('Second follow-up');
    expect(followUps[0]).not.toContain('First follow-up');
    expect(followUps[1]).toContain('First follow-up, edited');
    await page.getByTestId('queue-panel').waitFor({ state: 'detached' });
    expect(await selectedRow.getByTestId('thread-queued-count').count()).toBe(0);
    expect(app.errors).toEqual([]);
  });

  it('a queued message that cannot start says why, and deleting it lets the rest run', async (context) => {
    // The bad row comes from a second client over the WebSocket, which the Electron window does not have.
    if (app.openSecondClient === null) context.skip();
    const { page } = app;
    const gate = createGate();
    mock.enqueue(
      [{ type: 'text', text: 'Busy' }, { type: 'waitFor', release: gate.promise }, { type: 'finish' }],
      [{ type: 'text', text: 'Ran after the delete.' }, { type: 'finish' }],
    );
    await sendMessage(page, 'Keep busy');
    await page.getByTestId('stop-button').waitFor();
    const threadId = await page.getByTestId('conversation-pane').getAttribute('data-thread-id');
    const missing = path.join(folder, 'deleted-folder');
    const error = await page.evaluate(
      async ({ threadId, cwd }) => {
        const token = sessionStorage.getItem('wheelhouse.token') ?? '';
        const socket = new WebSocket(`ws://${location.host}/rpc?token=${encodeURIComponent(token)}`);
        const answers = new Map<number, (value: unknown) => void>();
        socket.onmessage = (event) => {
          const message = JSON.parse(String(event.data)) as { id?: number };
          if (typeof message.id === 'number') answers.get(message.id)?.(message);
        };
        await new Promise((resolve) => (socket.onopen = resolve));
        const call = (id: number, method: string, params: unknown) =>
          new Promise<unknown>((resolve) => {
            answers.set(id, resolve);
            socket.send(JSON.stringify({ id, method, params }));
          });
        await call(1, 'initialize', { clientInfo: { name: 'second-client', version: '0' } });
        const added = (await call(2, 'thread/queue/add', {
          threadId,
          turnStartParams: { threadId, input: [{ type: 'text', text: 'Work in a folder that is gone' }], cwd },
        })) as { error?: unknown };
        socket.close();
        return added.error ?? null;
      },
      { threadId, cwd: missing },
    );
    expect(error).toBeNull();
    const input = page.getByTestId('composer-input');
    await input.fill('Runs after the failure');
    await page.getByTestId('queue-button').click();
    await page.getByTestId('queue-card').nth(1).waitFor();

    gate.release();
    const failure = page.getByTestId('queue-failure');
    await failure.waitFor();
    expect(await failure.textContent()).toContain('deleted-folder');
    expect(await page.getByTestId('queue-text').allTextContents()).toEqual(['Work in a folder that is gone', 'Runs after the failure']);
    const shots = process.env.WHEELHOUSE_E2E_SCREENSHOTS;
    if (shots) await page.screenshot({ path: path.join(shots, 'queue-failed.png') });

    await failure.getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('agent-message').filter({ hasText: 'Ran after the delete.' }).waitFor();
    await page.getByTestId('queue-panel').waitFor({ state: 'detached' });
    expect(app.errors).toEqual([]);
  });

  it('a reloaded window shows the count of a thread that is not open from one request for all threads, without listing its queue', async (context) => {
    // The requests are counted on the WebSocket, which the Electron window does not use.
    if (app.openSecondClient === null) context.skip();
    const { page } = app;
    const gate = createGate();
    mock.enqueue(
      [{ type: 'text', text: 'Busy' }, { type: 'waitFor', release: gate.promise }, { type: 'finish' }],
      [{ type: 'text', text: 'First ran.' }, { type: 'finish' }],
      [{ type: 'text', text: 'Second ran.' }, { type: 'finish' }],
    );
    await sendMessage(page, 'Keep busy');
    await page.getByTestId('stop-button').waitFor();
    const busy = (await page.getByTestId('conversation-pane').getAttribute('data-thread-id'))!;
    const input = page.getByTestId('composer-input');
    for (const text of ['First waiting', 'Second waiting']) {
      await input.fill(text);
      await input.press('Alt+Enter');
    }
    await page.getByTestId('queue-card').nth(1).waitFor();
    const open = await createThread(page);

    const sent: { method?: string; params?: { threadId?: string } }[] = [];
    page.on('websocket', (socket) =>
      socket.on('framesent', ({ payload }) => {
        const message: unknown = JSON.parse(String(payload));
        sent.push(...((Array.isArray(message) ? message : [message]) as typeof sent));
      }),
    );
    await page.reload();
    const busyCount = threadRow(page, busy).getByTestId('thread-queued-count');
    await busyCount.filter({ hasText: '2' }).waitFor();
    await page.locator(`[data-testid="conversation-pane"][data-thread-id="${open}"]`).waitFor();
    expect(sent.filter((m) => m.method === 'thread/queue/counts')).toHaveLength(1);
    expect(sent.filter((m) => m.method === 'thread/queue/list' && m.params?.threadId !== open)).toEqual([]);
    const shots = process.env.WHEELHOUSE_E2E_SCREENSHOTS;
    if (shots) await page.screenshot({ path: path.join(shots, 'queue-sidebar-count.png') });

    // The busy thread's rows run while it is not open; its count follows and then goes.
    gate.release();
    await busyCount.waitFor({ state: 'detached' });
    expect(mock.pendingScripts).toBe(0);
    expect(app.errors).toEqual([]);
  });
});
