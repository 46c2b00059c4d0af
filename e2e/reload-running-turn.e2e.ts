import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execCall } from '../test-support/agent-commands.js';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { sendMessage, waitForConnected } from './page-actions.js';

/** A window reloaded while a command waits for approval finds the command, and its card, in its place. */
describe('reloading while a turn runs', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  useFirstRunApp({ models: ['mock-coder'], folderPrefix: 'wheelhouse-e2e-reload-' }, (parts) => ({ mock, app, folder } = parts));

  it('shows the waiting command with its approval card once, in the conversation; approved, its output streams in place', async () => {
    const { page } = app;
    await page.getByTestId('conversation-cwd').filter({ hasText: folder }).waitFor();
    const script = 'echo first-line; while [ ! -e go ]; do sleep 0.1; done; echo second-line';
    mock.enqueue(
      [{ type: 'text', text: 'I will run the script.' }, ...execCall(script, {}, 'call_run')],
      [{ type: 'text', text: 'The script ran.' }, { type: 'finish' }],
    );
    await sendMessage(page, 'Run the script');
    const cards = page.getByTestId('command-card').filter({ hasText: 'first-line; while' });
    await cards.getByTestId('approval-card').waitFor();

    await page.reload();
    await waitForConnected(page);
    await cards.getByTestId('approval-card').waitFor();
    expect(await cards.count()).toBe(1);
    expect(await page.getByTestId('approval-card').count()).toBe(1);
    expect(await cards.getAttribute('data-status')).toBe('waiting');
    // In its place: after the reply that announced it, inside the message list, not above the composer.
    expect(await page.locator('.pending-requests [data-testid="command-card"]').count()).toBe(0);
    await page.getByTestId('agent-message').filter({ hasText: 'I will run the script.' }).waitFor();
    const shots = process.env['WHEELHOUSE_E2E_SCREENSHOTS'];
    if (shots) await page.screenshot({ path: path.join(shots, 'reload-waiting-command.png') });

    await cards.getByTestId('approval-accept').click();
    await cards.getByTestId('command-output').filter({ hasText: 'first-line' }).waitFor();
    expect(await cards.getAttribute('data-status')).toBe('inProgress');
    expect(await cards.count()).toBe(1);
    expect(await page.getByTestId('approval-card').count()).toBe(0);

    await writeFile(path.join(folder, 'go'), '');
    await page.getByTestId('agent-message').filter({ hasText: 'The script ran.' }).waitFor({ timeout: 20_000 });
    await cards.getByTestId('command-status').filter({ hasText: 'Done' }).waitFor();
    expect(await cards.count()).toBe(1);
    expect(await page.getByTestId('agent-message').filter({ hasText: 'I will run the script.' }).count()).toBe(1);
    expect(app.errors).toEqual([]);
  });
});
