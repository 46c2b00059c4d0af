import type { Locator, Page } from 'playwright-core';

/** Waits until the window's connection indicator says it reached the runtime. */
export async function waitForConnected(page: Page): Promise<void> {
  await page.locator('[data-testid="connection-status"][data-status="connected"]').waitFor();
}

/** The sidebar row of one thread. */
export function threadRow(page: Page, threadId: string): Locator {
  return page.locator(`[data-testid="thread-row"][data-thread-id="${threadId}"]`);
}

/** Clicks New thread, starts it in the project the dialog offers first (or `folder`), and returns the id of the thread it opened. */
export async function createThread(page: Page, options: { readonly folder?: string; readonly worktree?: boolean } = {}): Promise<string> {
  const pane = page.getByTestId('conversation-pane');
  const before = await pane.getAttribute('data-thread-id');
  await page.getByTestId('new-thread').click();
  const dialog = page.getByTestId('new-thread-dialog');
  if (options.folder) await dialog.locator(`[data-testid="project-choice"][data-path="${options.folder}"] input`).check();
  if (options.worktree) await dialog.getByTestId('new-thread-worktree').check();
  await dialog.getByTestId('new-thread-start').click();
  await dialog.waitFor({ state: 'detached' });
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

/** Puts first run off ("Set up later"), for specs about other parts of the window. */
export async function skipSetup(page: Page): Promise<void> {
  await page.getByTestId('setup-later').click();
  await page.getByTestId('setup-screen').waitFor({ state: 'detached' });
}

/**
 * Goes through first run with an "Other OpenAI-compatible" provider at
 * `baseUrl` (no key): Test must succeed, then Start opens a thread in
 * `folder`. Returns the new thread's id.
 */
export async function completeFirstRun(page: Page, options: { baseUrl: string; folder: string; name?: string }): Promise<string> {
  await page.getByTestId('setup-screen').waitFor();
  await page.getByTestId('provider-other').click();
  await page.getByTestId('provider-name').fill(options.name ?? 'Mock provider');
  await page.getByTestId('provider-base-url').fill(options.baseUrl);
  await page.getByTestId('setup-test').click();
  await page.locator('[data-testid="test-result"][data-ok="true"]').waitFor();
  await page.getByTestId('folder-input').fill(options.folder);
  await page.getByTestId('setup-start').click();
  await page.getByTestId('setup-screen').waitFor({ state: 'detached' });
  const pane = page.locator('[data-testid="conversation-pane"][data-thread-id]');
  await pane.waitFor();
  const threadId = await pane.getAttribute('data-thread-id');
  if (!threadId) throw new Error('Start opened no thread');
  return threadId;
}

/** Types a message in the composer and sends it with Enter. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  const input = page.getByTestId('composer-input');
  await input.fill(text);
  await input.press('Enter');
}

/**
 * Console lines that are the browser's own network log while the runtime is
 * away or refuses a token: the WebSocket failures and the page's token probe
 * (GET /rpc, refused or 401). Anything else is an app error.
 */
export function withoutNetworkRefusals(errors: readonly string[]): string[] {
  return errors.filter(
    (e) =>
      !e.includes('WebSocket connection to') &&
      !e.includes('ERR_CONNECTION_REFUSED') &&
      // A server stopped while answering (a chunk of the page half sent, or not at all), or while
      // Chromium was still connecting to it (SOCKET_NOT_CONNECTED, seen under load in CI).
      !/ERR_(INCOMPLETE_CHUNKED_ENCODING|EMPTY_RESPONSE|CONNECTION_RESET|SOCKET_NOT_CONNECTED)/.test(e) &&
      !/status of 401/.test(e),
  );
}

/**
 * Pastes `text` into a field as Ctrl+V would: a `paste` event carrying it as
 * text/plain, then the browser's own insertion where the page lets it happen.
 */
export async function pasteText(field: Locator, text: string): Promise<void> {
  await field.focus();
  const inserted = await field.evaluate((element, pasted) => {
    const data = new DataTransfer();
    data.setData('text/plain', pasted);
    const event = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true });
    // A synthetic paste inserts nothing by itself: false means the page took it.
    return element.dispatchEvent(event);
  }, text);
  if (inserted) await field.page().keyboard.insertText(text);
}

/** Adds a stdio MCP server through the Add form of `place` (the Connections page or Settings) and submits it. */
export async function addMcpServer(place: Page | Locator, server: { readonly name: string; readonly command: string; readonly args?: string }): Promise<void> {
  await place.getByTestId('mcp-add').click();
  const form = place.getByTestId('mcp-form');
  await form.getByLabel('Name').fill(server.name);
  await form.getByLabel('Command (stdio)').fill(server.command);
  if (server.args !== undefined) await form.getByLabel('Arguments, one per line').fill(server.args);
  await form.getByRole('button', { name: 'Add' }).click();
}
