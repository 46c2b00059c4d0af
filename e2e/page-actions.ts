import type { Locator, Page } from 'playwright-core';

/** Waits until the window's connection indicator says it reached the runtime. */
export async function waitForConnected(page: Page): Promise<void> {
  await page.locator('[data-testid="connection-status"][data-status="connected"]').waitFor();
}

/** The sidebar row of one thread. */
export function threadRow(page: Page, threadId: string): Locator {
  return page.locator(`[data-testid="thread-row"][data-thread-id="${threadId}"]`);
}

/** Clicks New thread and returns the id of the thread it opened. */
export async function createThread(page: Page): Promise<string> {
  const pane = page.getByTestId('conversation-pane');
  const before = await pane.getAttribute('data-thread-id');
  await page.getByTestId('new-thread').click();
  const opened = before
    ? pane.and(page.locator(`[data-thread-id]:not([data-thread-id="${before}"])`))
    : pane.and(page.locator('[data-thread-id]'));
  await opened.waitFor();
  const threadId = await opened.getAttribute('data-thread-id');
  if (!threadId) throw new Error('the conversation pane shows no thread after New thread');
  await threadRow(page, threadId).waitFor();
  return threadId;
}

/** Opens a row's "…" menu (it shows on hover or focus). */
export async function openRowMenu(page: Page, threadId: string): Promise<void> {
  const row = threadRow(page, threadId);
  await row.hover();
  await row.getByTestId('thread-menu').click();
  await page.getByRole('menu').waitFor();
}

/** Starts an inline rename from the row menu and returns the input. */
export async function startRename(page: Page, threadId: string): Promise<Locator> {
  await openRowMenu(page, threadId);
  await page.getByTestId('rename-thread').click();
  const input = threadRow(page, threadId).getByTestId('rename-input');
  await input.waitFor();
  return input;
}

/** Renames through the inline editor and waits for the row to show the new name. */
export async function renameThread(page: Page, threadId: string, name: string): Promise<void> {
  const input = await startRename(page, threadId);
  await input.fill(name);
  await input.press('Enter');
  await input.waitFor({ state: 'detached' });
  await rowWithTitle(page, threadId, name).waitFor();
}

/** A row that shows exactly this title (waitFor() on it waits for the text). */
export function rowWithTitle(page: Page, threadId: string, title: string): Locator {
  return threadRow(page, threadId).filter({ has: page.locator('.thread-row-title', { hasText: exact(title) }) });
}

/** Archives or unarchives through the row menu. */
export async function chooseRowAction(page: Page, threadId: string, action: 'archive-thread' | 'unarchive-thread') {
  await openRowMenu(page, threadId);
  await page.getByTestId(action).click();
}

function exact(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}
