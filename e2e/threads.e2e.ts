import { describe, expect, it } from 'vitest';
import { createGate, type MockModelServer } from '../test-support/mock-model/index.js';
import { useFirstRunApp } from './first-run-app.js';
import { e2eTarget, type WheelhouseApp } from './harness.js';
import { useLaunchedApp } from './launched-app.js';
import {
  chooseRowAction,
  createThread,
  renameThread,
  rowWithTitle,
  sendMessage,
  skipSetup,
  startRename,
  threadRow,
  waitForConnected,
} from './page-actions.js';

describe('threads in the sidebar', () => {
  let app: WheelhouseApp;
  useLaunchedApp({}, (parts) => ({ app } = parts));

  it('creates a thread, renames it, and keeps the name across a reload', async () => {
    const { page } = app;
    await page.getByText('No threads yet').waitFor();

    const threadId = await createThread(page);
    await rowWithTitle(page, threadId, 'Untitled thread').waitFor();

    await renameThread(page, threadId, 'Release checklist');
    await page.getByTestId('conversation-title').filter({ hasText: 'Release checklist' }).waitFor();

    // A blank name is refused in place, and Escape leaves the old name alone.
    const input = await startRename(page, threadId);
    await input.fill('   ');
    await input.press('Enter');
    const message = page.getByTestId('rename-error');
    await message.waitFor();
    expect(await message.textContent()).toMatch(/can’t be empty/);
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    await input.press('Escape');
    await input.waitFor({ state: 'detached' });
    await rowWithTitle(page, threadId, 'Release checklist').waitFor();

    await page.reload();
    await waitForConnected(page);
    await rowWithTitle(page, threadId, 'Release checklist').waitFor();
    expect(await page.getByTestId('thread-row').count()).toBe(1);
    // The selection survives the reload too.
    await page.locator(`[data-testid="conversation-pane"][data-thread-id="${threadId}"]`).waitFor();
    expect(app.errors).toEqual([]);
  });

  it('archives a thread out of the list, shows it on request, and restores it', async () => {
    const { page } = app;
    const keep = await createThread(page);
    const archived = await createThread(page);
    await renameThread(page, archived, 'Old experiment');

    await chooseRowAction(page, archived, 'archive-thread');
    await threadRow(page, archived).waitFor({ state: 'detached' });
    await threadRow(page, keep).waitFor();
    await page.getByTestId('toast').filter({ hasText: 'Archived “Old experiment”' }).waitFor();

    // Still archived after a reload: the runtime, not the page, remembers it.
    await page.reload();
    await waitForConnected(page);
    await threadRow(page, keep).waitFor();
    expect(await threadRow(page, archived).count()).toBe(0);

    const toggle = page.getByTestId('show-archived');
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await page.locator(`[data-testid="thread-row"][data-thread-id="${archived}"][data-archived]`).waitFor();

    await chooseRowAction(page, archived, 'unarchive-thread');
    await page.locator(`[data-testid="thread-row"][data-thread-id="${archived}"]:not([data-archived])`).waitFor();

    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await rowWithTitle(page, archived, 'Old experiment').waitFor();
    await threadRow(page, keep).waitFor();
    expect(app.errors).toEqual([]);
  });

  // The desktop app trusts its one window only; several clients meet on the browser host.
  it('keeps a second client in sync without a reload', async (ctx) => {
    if (e2eTarget() === 'electron') ctx.skip('the desktop app trusts its one window only; two clients exist on the browser host');
    const first = app.page;
    if (!app.openSecondClient) throw new Error('this target cannot open a second client');
    const second = await app.openSecondClient();
    await waitForConnected(second);
    await skipSetup(second);

    const threadId = await createThread(first);
    await threadRow(second, threadId).waitFor();

    await renameThread(first, threadId, 'Shared between windows');
    await rowWithTitle(second, threadId, 'Shared between windows').waitFor();

    await chooseRowAction(first, threadId, 'archive-thread');
    await threadRow(second, threadId).waitFor({ state: 'detached' });

    await second.getByTestId('show-archived').click();
    await chooseRowAction(second, threadId, 'unarchive-thread');
    await threadRow(first, threadId).waitFor();
    expect(app.errors).toEqual([]);
  });
});

/** A result the person has not seen marks its thread in the sidebar until they open it. */
describe('unread threads', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;

  useFirstRunApp({}, (parts) => ({ mock, app } = parts));

  it('marks a thread whose reply came while another was open, and reads it when opened', async () => {
    const { page } = app;
    const first = await page.locator('[data-testid="conversation-pane"][data-thread-id]').getAttribute('data-thread-id');
    if (!first) throw new Error('first run opened no thread');

    // A reply that arrives while its thread is open is read as it comes.
    mock.enqueue([{ type: 'text', text: 'Seen as it came.' }, { type: 'finish' }]);
    await sendMessage(page, 'Say something');
    await page.getByTestId('agent-message').filter({ hasText: 'Seen as it came.' }).waitFor();
    await page.getByTestId('send-button').waitFor();
    await page.locator(`[data-testid="thread-row"][data-thread-id="${first}"]:not([data-unread])`).waitFor();

    // The next one finishes while the person looks at another thread.
    const gate = createGate();
    mock.enqueue([{ type: 'waitFor', release: gate.promise }, { type: 'text', text: 'Done while you were away.' }, { type: 'finish' }]);
    await sendMessage(page, 'Take your time');
    await page.getByTestId('stop-button').waitFor();
    const other = await createThread(page);
    await page.locator(`[data-testid="conversation-pane"][data-thread-id="${other}"]`).waitFor();
    gate.release();
    const unread = page.locator(`[data-testid="thread-row"][data-thread-id="${first}"][data-unread]`);
    await unread.waitFor();
    expect(await unread.getByTestId('thread-unread').count()).toBe(1);

    // Still unread after a reload: the runtime keeps it, not the page.
    await page.reload();
    await waitForConnected(page);
    await unread.waitFor();

    await threadRow(page, first).locator('.thread-row-main').click();
    await page.getByTestId('agent-message').filter({ hasText: 'Done while you were away.' }).waitFor();
    await unread.waitFor({ state: 'detached' });
    await page.reload();
    await waitForConnected(page);
    await page.locator(`[data-testid="thread-row"][data-thread-id="${first}"]:not([data-unread])`).waitFor();
    expect(app.errors).toEqual([]);
  });
});
