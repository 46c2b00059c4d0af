import { existsSync } from 'node:fs';
import { blocking, runAxe } from './axe.js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execCall } from '../test-support/agent-commands.js';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { sendMessage, waitForConnected } from './page-actions.js';

/** The agent asks to run commands; the person approves one (its output appears live) and denies another. */
describe('commands with the person in control', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  useFirstRunApp({ models: ['mock-coder'], folderPrefix: 'wheelhouse-e2e-commands-' }, (parts) => ({ mock, app, folder } = parts));

  it('approves a command and watches its output live; a denied one shows as declined', async () => {
    const { page } = app;
    await page.getByTestId('conversation-cwd').filter({ hasText: folder }).waitFor();
    // Prints one line, then waits for the test to create `go` before the second: the first must show while it runs.
    const script = 'echo first-line; while [ ! -e go ]; do sleep 0.1; done; echo second-line; touch approved.txt';
    mock.enqueue(execCall(script, {}, 'call_run'), [{ type: 'text', text: 'The command ran.' }, { type: 'finish' }]);
    await sendMessage(page, 'Run the script');

    const card = page.getByTestId('command-card').filter({ hasText: 'first-line; while' });
    await card.getByTestId('approval-card').waitFor();
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    expect(await card.getAttribute('data-status')).toBe('waiting');
    expect(await page.getByTestId('approvals-badge').textContent()).toContain('1');
    expect(existsSync(path.join(folder, 'approved.txt'))).toBe(false);

    await card.getByTestId('approval-accept').click();
    await card.getByTestId('command-output').filter({ hasText: 'first-line' }).waitFor();
    expect(await card.getAttribute('data-status')).toBe('inProgress');
    expect(await card.getByTestId('command-output').textContent()).not.toContain('second-line');
    expect(await page.getByTestId('approvals-badge').count()).toBe(0);

    await writeFile(path.join(folder, 'go'), '');
    await page.getByTestId('command-card').and(page.locator('[data-status="completed"]')).waitFor({ timeout: 20_000 });
    await card.getByTestId('command-status').filter({ hasText: 'Done' }).waitFor();
    await card.getByTestId('command-text').click(); // fold it open again: finished cards fold away
    await card.getByTestId('command-output').filter({ hasText: 'second-line' }).waitFor();
    await page.getByTestId('agent-message').filter({ hasText: 'The command ran.' }).waitFor();
    expect(existsSync(path.join(folder, 'approved.txt'))).toBe(true);

    // Denied with the keyboard: D on the focused card.
    mock.enqueue(execCall('touch denied.txt', {}, 'call_deny'), [{ type: 'text', text: 'Fine, I will not.' }, { type: 'finish' }]);
    await sendMessage(page, 'Now make another file');
    const denied = page.getByTestId('command-card').filter({ hasText: 'touch denied.txt' });
    await denied.getByTestId('approval-card').focus();
    await page.keyboard.press('d');
    await denied.getByTestId('command-status').filter({ hasText: 'You declined' }).waitFor();
    await page.getByTestId('agent-message').filter({ hasText: 'Fine, I will not.' }).waitFor();
    expect(existsSync(path.join(folder, 'denied.txt'))).toBe(false);
    expect(mock.requests.at(-1)?.rawBody).toContain('declined');

    // "Approve for this thread" shows its scope, which can be revoked.
    mock.enqueue(execCall('touch granted.txt', {}, 'call_grant'), [{ type: 'text', text: 'Made it.' }, { type: 'finish' }]);
    await sendMessage(page, 'One more file');
    await page.getByTestId('command-card').filter({ hasText: 'touch granted.txt' }).getByTestId('approval-accept-thread').click();
    const grant = page.getByTestId('session-grant').filter({ hasText: 'touch granted.txt' });
    await page.getByTestId('agent-message').filter({ hasText: 'Made it.' }).waitFor();
    await grant.waitFor();
    await grant.getByRole('button').click();
    await page.getByTestId('session-grants').waitFor({ state: 'detached' });

    // After a reload the history still shows both outcomes.
    await page.reload();
    await waitForConnected(page);
    await page.getByTestId('command-card').filter({ hasText: 'touch denied.txt' }).getByTestId('command-status').filter({ hasText: 'You declined' }).waitFor();
    await page.getByTestId('command-card').filter({ hasText: 'first-line; while' }).getByTestId('command-status').filter({ hasText: 'Done' }).waitFor();
    expect(app.errors).toEqual([]);
  });
});
