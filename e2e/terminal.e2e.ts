import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blocking, runAxe } from './axe.js';
import { launchWheelhouse, type WheelhouseApp } from './harness.js';
import { createThread, skipSetup, waitForConnected } from './page-actions.js';

describe('the person\'s own terminal', () => {
  let app: WheelhouseApp;

  beforeEach(async () => {
    app = await launchWheelhouse();
    await waitForConnected(app.page);
    await skipSetup(app.page);
  });

  afterEach(async () => {
    await app?.close();
  });

  it('opens from the conversation header, runs what is typed, follows its size, and closes', async () => {
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
    // Make the panel taller, as dragging its corner does; xterm refits and the pty follows.
    await panel.evaluate((element) => {
      (element as HTMLElement).style.height = '460px';
    });
    await page.keyboard.type('clear; stty size\n');
    const secondSize = await readSttySize(page, firstSize.rows);
    expect(secondSize.rows).toBeGreaterThan(firstSize.rows);
    expect(secondSize.cols).toBe(firstSize.cols);

    // The open panel adds no serious or critical accessibility problem.
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await page.getByTestId('terminal-close').click();
    await panel.waitFor({ state: 'detached' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    expect(app.errors).toEqual([]);
  });
});

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
