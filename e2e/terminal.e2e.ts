import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blocking, runAxe } from './axe.js';
import type { WheelhouseApp } from './harness.js';
import { useLaunchedApp } from './launched-app.js';
import { createThread, waitForConnected } from './page-actions.js';

describe('the person\'s own terminal', () => {
  let app: WheelhouseApp;
  useLaunchedApp({}, (parts) => ({ app } = parts));

  it('opens from the conversation header, runs what is typed, resizes from the bar on its top edge (mouse and keys), closes, and remembers its height', async () => {
    const { page } = app;
    await createThread(page);
    const toggle = page.getByTestId('terminal-toggle');
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    const panel = page.getByTestId('terminal-panel');
    await panel.waitFor();
    const rows = panel.locator('.xterm-rows');

    await panel.locator('.xterm').click();
    // The arithmetic makes the output differ from the echoed keystrokes.
    await page.keyboard.type('echo "wheel$((6*7))house"; pwd\n');
    await rows.filter({ hasText: 'wheel42house' }).waitFor({ timeout: 20_000 });
    const cwd = await page.getByTestId('conversation-cwd').textContent();
    expect(await rows.textContent()).toContain(cwd);

    await page.keyboard.type('stty size\n');
    const firstSize = await readSttySize(page);
    // Drag the bar on the panel's top edge up: the panel grows, xterm refits and the pty follows.
    const before = await panelHeight(page);
    const bar = page.getByTestId('terminal-resize');
    const box = (await bar.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 - 90, { steps: 6 });
    await page.mouse.up();
    expect(await panelHeight(page)).toBe(before + 90);
    await panel.locator('.xterm').click();
    await page.keyboard.type('clear; stty size\n');
    const secondSize = await readSttySize(page, firstSize.rows);
    expect(secondSize.rows).toBeGreaterThan(firstSize.rows);
    expect(secondSize.cols).toBe(firstSize.cols);

    // The keyboard does the same on the bar: up is taller, down shorter; it never goes below its least height.
    await bar.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await panelHeight(page)).toBe(before + 90 - 40);
    expect(await bar.getAttribute('aria-valuenow')).toBe(String(before + 50));
    await page.keyboard.press('Home');
    expect(await panelHeight(page)).toBe(120);
    await page.keyboard.press('ArrowUp');
    expect(await panelHeight(page)).toBe(140);

    // The open panel adds no serious or critical accessibility problem.
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await page.getByTestId('terminal-close').click();
    await panel.waitFor({ state: 'detached' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');

    // The size is remembered: a reloaded window opens the terminal as tall as it was left.
    await page.reload();
    await waitForConnected(page);
    await page.getByTestId('terminal-toggle').click();
    await panel.waitFor();
    expect(await panelHeight(page)).toBe(140);
    expect(app.errors).toEqual([]);
  });

  it('asks before closing on a program that still runs, and closes at once at the prompt', async () => {
    const { page } = app;
    await createThread(page);
    await page.getByTestId('terminal-toggle').click();
    const panel = page.getByTestId('terminal-panel');
    await panel.waitFor();
    const rows = panel.locator('.xterm-rows');
    await panel.locator('.xterm').click();
    // The program prints its own marker, so it is running in front by the time it shows.
    await page.keyboard.type(`sh -c 'echo "busy-$((6*7))"; exec sleep 300'\n`);
    await rows.filter({ hasText: 'busy-42' }).waitFor({ timeout: 20_000 });

    await page.getByTestId('terminal-close').click();
    const dialog = page.getByTestId('confirm-dialog');
    await dialog.waitFor();
    expect(await dialog.innerText()).toMatch(/“(sleep|sh)” is still running in it/);
    await shoot(page, 'terminal-close-confirm');
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await panel.isVisible()).toBe(true);

    // Stopped by hand: back at the prompt, closing asks nothing.
    await panel.locator('.xterm').click();
    await page.keyboard.press('Control+C');
    await page.keyboard.type('echo "idle-$((2+3))"\n');
    await rows.filter({ hasText: 'idle-5' }).waitFor({ timeout: 20_000 });
    await page.getByTestId('terminal-close').click();
    await panel.waitFor({ state: 'detached' });
    expect(await page.getByTestId('confirm-dialog').count()).toBe(0);
    expect(app.errors).toEqual([]);
  });
});

async function panelHeight(page: WheelhouseApp['page']): Promise<number> {
  return Math.round(await page.getByTestId('terminal-panel').evaluate((element) => element.getBoundingClientRect().height));
}

async function shoot(page: WheelhouseApp['page'], name: string): Promise<void> {
  const folder = path.join(os.tmpdir(), 'shots', 'desktop-shell');
  await mkdir(folder, { recursive: true });
  for (const colorScheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: path.join(folder, `${name}-${colorScheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: null });
}

/** The last `rows cols` line `stty size` printed on the screen (other than `notRows`). */
async function readSttySize(page: WheelhouseApp['page'], notRows?: number): Promise<{ rows: number; cols: number }> {
  const handle = await page.waitForFunction(
    (exclude) => {
      const lines = Array.from(document.querySelectorAll('[data-testid="terminal-panel"] .xterm-rows > div')).map((row) => row.textContent?.trim() ?? '');
      const sizes = lines.filter((line) => /^\d+ \d+$/.test(line)).map((line) => line.split(' ').map(Number) as [number, number]);
      const last = sizes.at(-1);
      return last && last[0] !== exclude ? { rows: last[0], cols: last[1] } : null;
    },
    notRows ?? -1,
    { timeout: 20_000 },
  );
  return (await handle.jsonValue()) as { rows: number; cols: number };
}
