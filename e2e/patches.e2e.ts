import { existsSync } from 'node:fs';
import { readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply } from '../test-support/agent-commands.js';
import { patchCall, patchOf } from '../test-support/agent-patches.js';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { blocking, runAxe } from './axe.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { sendMessage, waitForConnected } from './page-actions.js';


/** The agent proposes patches; the person reads the diff, applies one, denies another; a bad one says which hunk failed. */
describe('file patches with the person in control', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  useFirstRunApp({ models: ['mock-coder'], folderPrefix: 'wheelhouse-e2e-patches-' }, (parts) => ({ mock, app, folder } = parts));

  it('shows the diff before the person decides, applies it on approval, and keeps declined and failed patches clear', async () => {
    const { page } = app;
    const shots = process.env.WHEELHOUSE_E2E_SCREENSHOTS;
    await page.getByTestId('conversation-cwd').filter({ hasText: folder }).waitFor();
    await writeFile(path.join(folder, 'greeting.txt'), 'hello\nold line\nbye\n');
    mock.enqueue(
      patchCall(patchOf('*** Update File: greeting.txt', '@@', ' hello', '-old line', '+new line', ' bye', '*** Add File: docs/notes.md', '+# Notes', '+first'), 'call_edit'),
      textReply('Edited the greeting.'),
    );
    await sendMessage(page, 'Fix the greeting');

    const card = page.getByTestId('file-change-card').filter({ hasText: 'Changed 2 files' });
    const approval = card.getByTestId('file-approval-card');
    await approval.waitFor();
    expect(await card.getAttribute('data-status')).toBe('waiting');
    // The diff is there before the decision: both files, their kinds, removed and added lines.
    expect(await card.getByTestId('file-diff-path').allTextContents()).toEqual(['greeting.txt', 'docs/notes.md']);
    expect(await card.getByTestId('file-diff').evaluateAll((sections) => sections.map((s) => s.getAttribute('data-kind')))).toEqual(['update', 'add']);
    expect(await card.locator('[data-line="removed"] .file-diff-text').allTextContents()).toEqual(['removed: old line']);
    expect(await card.locator('[data-line="added"] .file-diff-text').allTextContents()).toEqual(['added: new line', 'added: # Notes', 'added: first']);
    expect(await page.getByTestId('approvals-badge').textContent()).toContain('1');
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    expect(await readFile(path.join(folder, 'greeting.txt'), 'utf8')).toBe('hello\nold line\nbye\n');
    if (shots) {
      await page.screenshot({ path: path.join(shots, 'patch-approval.png') });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: path.join(shots, 'patch-approval-dark.png') });
      await page.emulateMedia({ colorScheme: 'light' });
    }

    // A reloaded window gets the waiting request again, diff and all.
    await page.reload();
    await waitForConnected(page);
    await approval.waitFor();
    expect(await card.locator('[data-line="removed"] .file-diff-text').allTextContents()).toEqual(['removed: old line']);

    // The Approvals inbox lists the patch with its files; "Open thread" leads back to the diff.
    await page.getByTestId('open-approvals').click();
    const row = page.getByTestId('inbox-row');
    // Files in words, not git's letters.
    await row.filter({ hasText: 'changed greeting.txt, new docs/notes.md' }).waitFor();
    expect(await row.getByTestId('inbox-accept').textContent()).toBe('Apply');
    if (shots) await page.screenshot({ path: path.join(shots, 'patch-inbox.png') });
    await row.getByRole('button', { name: /^Open thread/ }).click();
    await approval.waitFor();

    // Applied with the keyboard, like a command: A on the focused card.
    await approval.focus();
    await page.keyboard.press('a');
    await card.getByTestId('file-change-status').filter({ hasText: 'Applied' }).waitFor();
    await page.getByTestId('agent-message').filter({ hasText: 'Edited the greeting.' }).waitFor();
    expect(await readFile(path.join(folder, 'greeting.txt'), 'utf8')).toBe('hello\nnew line\nbye\n');
    expect(await readFile(path.join(folder, 'docs/notes.md'), 'utf8')).toBe('# Notes\nfirst\n');
    expect(await card.locator('[data-line="added"]').count()).toBe(3);
    expect(await page.getByTestId('approvals-badge').count()).toBe(0);
    if (shots) await page.screenshot({ path: path.join(shots, 'patch-applied.png') });

    // Denied with D: nothing changes, the card says so.
    mock.enqueue(patchCall(patchOf('*** Delete File: greeting.txt'), 'call_delete'), textReply('Kept it.'));
    await sendMessage(page, 'Delete the greeting');
    const deleted = page.getByTestId('file-change-card').filter({ hasText: 'Deleted greeting.txt' });
    await deleted.getByTestId('file-approval-card').focus();
    await page.keyboard.press('d');
    await deleted.getByTestId('file-change-status').filter({ hasText: 'You declined' }).waitFor();
    expect(await deleted.getByTestId('decided-by-text').textContent()).toBe('You declined');
    // What the model was told ("Do not retry it") is for the model, not shown as if for the person.
    expect(await deleted.innerText()).not.toContain('Do not retry');
    await page.getByTestId('agent-message').filter({ hasText: 'Kept it.' }).waitFor();
    expect(existsSync(path.join(folder, 'greeting.txt'))).toBe(true);

    // A hunk that does not match: not applied, the card names the hunk, nobody is asked.
    mock.enqueue(patchCall(patchOf('*** Update File: greeting.txt', '@@', '-no such line', '+x'), 'call_bad'), textReply('I will re-read the file.'));
    await sendMessage(page, 'Try again');
    const failed = page.getByTestId('file-change-card').and(page.locator('[data-status="failed"]'));
    await failed.getByTestId('file-change-problem').filter({ hasText: 'no file was changed' }).waitFor();
    await failed.getByTestId('file-change-problem').locator('summary').click();
    await failed.getByTestId('file-change-problem').filter({ hasText: 'hunk 1 of greeting.txt does not apply' }).waitFor();
    expect(await failed.getByTestId('file-change-summary').textContent()).toBe('Patch to greeting.txt');
    expect(await failed.getByTestId('file-change-patch').textContent()).toContain('-no such line');
    await page.getByTestId('agent-message').filter({ hasText: 'I will re-read the file.' }).waitFor();
    expect(await readFile(path.join(folder, 'greeting.txt'), 'utf8')).toBe('hello\nnew line\nbye\n');
    if (shots) await page.screenshot({ path: path.join(shots, 'patch-declined-failed.png'), fullPage: true });

    // "Apply all in this thread" (T) shows its scope above the composer and can be revoked.
    mock.enqueue(patchCall(patchOf('*** Update File: docs/notes.md', '*** Move to: docs/NOTES.md', '@@', ' # Notes', '-first', '+second'), 'call_grant'), textReply('Renamed.'));
    await sendMessage(page, 'Rename the notes');
    const moved = page.getByTestId('file-change-card').filter({ hasText: 'Moved docs/notes.md → docs/NOTES.md' });
    expect(await moved.getByTestId('file-diff').getAttribute('data-kind')).toBe('move');
    expect(await moved.getByTestId('file-diff-path').textContent()).toBe('docs/notes.mddocs/NOTES.md');
    await moved.getByTestId('file-approval-card').focus();
    await page.keyboard.press('t');
    await moved.getByTestId('file-change-status').filter({ hasText: 'Applied' }).waitFor();
    expect(await readFile(path.join(folder, 'docs/NOTES.md'), 'utf8')).toBe('# Notes\nsecond\n');
    expect(existsSync(path.join(folder, 'docs/notes.md'))).toBe(false);
    const grant = page.getByTestId('session-grant').and(page.locator('[data-kind="fileChange"]'));
    await grant.filter({ hasText: `file changes in ${await realpath(folder)}` }).waitFor();
    if (shots) await page.screenshot({ path: path.join(shots, 'patch-grant.png') });
    await grant.getByRole('button').click();
    await page.getByTestId('session-grants').waitFor({ state: 'detached' });

    // After a reload the history shows the outcomes (the newest ones are in view).
    await page.reload();
    await waitForConnected(page);
    await page.getByTestId('file-change-card').filter({ hasText: 'Moved docs/notes.md → docs/NOTES.md' }).getByTestId('file-change-status').filter({ hasText: 'Applied' }).waitFor();
    await page.getByTestId('file-change-card').filter({ hasText: 'Patch to greeting.txt' }).getByTestId('file-change-status').filter({ hasText: 'Not applied' }).waitFor();
    expect(app.errors).toEqual([]);
  });
});
