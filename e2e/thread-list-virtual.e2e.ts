import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { e2eTarget } from './harness.js';
import { renameThread, threadRow, waitForConnected } from './page-actions.js';
import { snapBothSchemes } from './screenshots.js';
import { openServedPage, useCleanups } from './served-page.js';

const cleanups = useCleanups();
const THREADS = 300;

/** The id of the thread whose row has keyboard focus ('' when focus is elsewhere). */
function focusedThread(page: Page): Promise<string> {
  return page.evaluate(() => document.activeElement?.closest('[data-testid="thread-row"]')?.getAttribute('data-thread-id') ?? '');
}

describe('a sidebar with hundreds of threads', () => {
  beforeEach((ctx) => {
    if (e2eTarget() === 'electron') ctx.skip('threads are seeded through a runtime in this process, which only the browser host has');
  });

  it('keeps only a window of rows in the DOM, scrolls to the last, walks past the window with the arrow keys, and opens a click', async () => {
    const served = await openServedPage(cleanups);
    const { page, runtime } = served;
    const folders = await Promise.all(['api-', 'web-'].map((prefix) => mkdtemp(path.join(os.tmpdir(), `wheelhouse-e2e-${prefix}`))));
    cleanups.push(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))).then(() => undefined));
    // Through the real runtime: the first half in one project, the second in another, the oldest archived.
    const client = await runtime.client();
    const ids: string[] = [];
    for (let n = 0; n < THREADS; n += 1) {
      const { thread } = await client.request('thread/start', { cwd: folders[n < THREADS / 2 ? 0 : 1] });
      await client.request('thread/name/set', { threadId: thread.id, name: `Seeded thread ${n + 1}` });
      ids.push(thread.id);
    }
    await client.request('thread/archive', { threadId: ids[0]! });
    // The sidebar's order: newest first (ties by id, as the sidebar settles them), grouped by project in the order their newest thread comes.
    const listed: Array<{ id: string; cwd: string; updatedAt: number; createdAt: number }> = [];
    let cursor: string | null = null;
    do {
      const next: { data: typeof listed; nextCursor: string | null } = await client.request('thread/list', { limit: 100, cursor });
      listed.push(...next.data);
      cursor = next.nextCursor;
    } while (cursor !== null);
    listed.sort((a, b) => b.updatedAt - a.updatedAt || b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    const byProject = new Map<string, string[]>();
    for (const thread of listed) byProject.set(thread.cwd, [...(byProject.get(thread.cwd) ?? []), thread.id]);
    const order = [...byProject.values()].flat();
    expect(order).toHaveLength(THREADS - 1);
    const last = order[order.length - 1]!;
    await page.reload();
    await waitForConnected(page);

    const list = page.getByTestId('thread-list');
    await threadRow(page, order[0]!).waitFor();
    const rendered = await page.getByTestId('thread-row').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(60);
    expect(await page.getByTestId('thread-project').count()).toBe(1);
    await snapBothSchemes(page, 'sidebar-many-top');

    // Scrolling to the end reaches the oldest active thread (rows are measured as they come, so the end may move).
    const oldest = threadRow(page, last);
    await page.waitForFunction(
      (id) => {
        const scroller = document.querySelector('[data-testid="thread-list"]')!;
        scroller.scrollTop = scroller.scrollHeight;
        return document.querySelector(`[data-thread-id="${id}"]`) !== null;
      },
      last,
      { polling: 'raf' },
    );
    expect(await page.getByTestId('thread-row').count()).toBeLessThan(60);
    expect(await page.getByTestId('thread-project').last().getAttribute('data-path')).toBe([...byProject.keys()].at(-1));

    // A click opens it.
    await oldest.locator('.thread-row-main').click();
    await page.locator(`[data-testid="conversation-pane"][data-thread-id="${last}"]`).waitFor();
    await page.locator(`[data-testid="thread-row"][data-thread-id="${last}"][data-selected]`).waitFor();
    // Its menu opens where the row is, and renames it in place.
    await renameThread(page, last, 'Renamed far down the list');

    // The archived section at the very end, when shown.
    await page.getByTestId('show-archived').click();
    await page.waitForFunction(
      (id) => {
        const scroller = document.querySelector('[data-testid="thread-list"]')!;
        scroller.scrollTop = scroller.scrollHeight;
        return document.querySelector(`[data-thread-id="${id}"][data-archived]`) !== null;
      },
      ids[0]!,
      { polling: 'raf' },
    );
    await snapBothSchemes(page, 'sidebar-many-end-archived');

    // From the top, ArrowDown walks row by row far past the first window, across the project heading, into view.
    await list.evaluate((element) => (element.scrollTop = 0));
    await threadRow(page, order[0]!).locator('.thread-row-main').focus();
    const steps = THREADS / 2 + 20;
    for (let n = 1; n <= steps; n += 1) {
      await page.keyboard.press('ArrowDown');
      expect(await focusedThread(page)).toBe(order[n]);
      if (n === [...byProject.values()][0]!.length + 1) await snapBothSchemes(page, 'sidebar-many-keyboard-heading');
    }
    expect(await page.getByTestId('thread-row').count()).toBeLessThan(60);
    // In view once the list has scrolled to it (a frame or two after the key; rows are a fraction of a pixel tall).
    await page.waitForFunction(() => {
      const row = document.activeElement!.getBoundingClientRect();
      const scroller = document.querySelector('[data-testid="thread-list"]')!.getBoundingClientRect();
      return row.top >= scroller.top - 1 && row.bottom <= scroller.bottom + 1;
    });
    for (let n = 1; n <= 3; n += 1) {
      await page.keyboard.press('ArrowUp');
      expect(await focusedThread(page)).toBe(order[steps - n]);
    }

    // Scrolled away with the mouse, the focused row keeps its place: the next arrow key goes on from it.
    await list.evaluate((element) => (element.scrollTop = 0));
    await page.keyboard.press('ArrowDown');
    expect(await focusedThread(page)).toBe(order[steps - 2]);

    // The selection comes back into view after a reload, far down the list.
    await page.reload();
    await waitForConnected(page);
    const selected = page.locator(`[data-testid="thread-row"][data-thread-id="${last}"][data-selected]`);
    await selected.waitFor();
    await page.waitForFunction((id) => {
      const row = document.querySelector(`[data-thread-id="${id}"]`)?.getBoundingClientRect();
      const scroller = document.querySelector('[data-testid="thread-list"]')!.getBoundingClientRect();
      return row !== undefined && row.top >= scroller.top - 1 && row.bottom <= scroller.bottom + 1;
    }, last);
  });
});
