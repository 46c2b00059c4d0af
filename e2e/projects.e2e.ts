import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { blocking, runAxe } from './axe.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { createThread, sendMessage } from './page-actions.js';

function patchCall(id: string, ...lines: string[]) {
  const input = ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');
  return [
    { type: 'toolCalls' as const, calls: [{ id, name: 'apply_patch', arguments: JSON.stringify({ input }) }] },
    { type: 'finish' as const, reason: 'tool_calls' as const },
  ];
}

const reply = (text: string) => [{ type: 'text' as const, text }, { type: 'finish' as const }];
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A project with remembered settings, a thread in its own copy, the agent's edit in Changes, undone, the copy discarded. */
describe('projects, separate copies and changes', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  useFirstRunApp({ models: ['mock-coder'], folderPrefix: 'wheelhouse-e2e-projects-' }, (parts) => ({ mock, app, folder } = parts));

  it('starts a thread in a worktree, shows the agent’s edit in Changes, undoes it and discards the copy', async () => {
    const { page } = app;
    const shots = process.env.WHEELHOUSE_E2E_SCREENSHOTS;
    if (shots) mkdirSync(shots, { recursive: true });
    const original = ['export const one = 1;', 'export const two = "two";', 'export const three = 3;', ...Array.from({ length: 8 }, (_, i) => `// line ${i + 4}`), 'export const twelve = 12;', ''].join('\n');
    await writeFile(path.join(folder, 'greeting.ts'), original);
    git(folder, 'init', '-q', '-b', 'main');
    git(folder, 'add', '.');
    git(folder, 'config', 'user.name', 'Person');
    git(folder, 'config', 'user.email', 'person@example.com');
    git(folder, 'commit', '-q', '-m', 'first');

    // The header's folder opens the project: its branch, and what its new threads start with.
    await page.getByTestId('conversation-project').click();
    const panel = page.getByTestId('project-panel');
    await panel.getByTestId('project-repo').filter({ hasText: 'main · clean' }).waitFor();
    await panel.getByTestId('project-sandbox').selectOption('danger-full-access');
    await panel.getByTestId('project-approvals').selectOption('never');
    await expect.poll(() => readFile(path.join(app.home, 'config.toml'), 'utf8')).toContain('sandbox_mode = "danger-full-access"');
    // A command rule for this project only: listed here, not among the rules for every thread.
    const projectRules = panel.getByTestId('project-rules');
    await projectRules.getByTestId('rule-pattern').fill('make deploy');
    await projectRules.getByTestId('rule-decision-forbidden').click();
    await projectRules.getByTestId('rule-submit').click();
    await projectRules.getByTestId('rule-row').filter({ hasText: 'make deploy' }).filter({ hasText: 'this project:1' }).waitFor();
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    if (shots) await page.screenshot({ path: path.join(shots, 'project-panel.png') });
    await panel.getByRole('button', { name: 'Close' }).click();
    await panel.waitFor({ state: 'detached' });

    // New thread asks which project; this one gets a separate copy.
    await page.getByTestId('new-thread').click();
    const dialog = page.getByTestId('new-thread-dialog');
    await dialog.locator(`[data-testid="project-choice"][data-path="${folder}"] input:checked`).waitFor();
    await dialog.getByTestId('new-thread-worktree').check();
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    if (shots) await page.screenshot({ path: path.join(shots, 'new-thread-dialog.png') });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const threadId = await createThread(page, { folder, worktree: true });
    const branchMenu = page.getByTestId('worktree-menu');
    await branchMenu.filter({ hasText: /wheelhouse\/thread-/ }).waitFor();
    const copy = (await page.getByTestId('conversation-cwd').textContent())!;
    expect(copy).not.toBe(folder);
    expect(git(copy, 'branch', '--show-current')).toMatch(/^wheelhouse\/thread-/);
    // The sidebar puts the copy's thread under its project, with the first thread.
    const group = page.locator(`[data-testid="thread-project"][data-path="${folder}"]`);
    await group.locator(`[data-testid="thread-row"][data-thread-id="${threadId}"]`).waitFor();
    expect(await group.getByTestId('thread-row').count()).toBe(2);

    mock.enqueue(
      patchCall(
        'call_edit',
        '*** Update File: greeting.ts',
        '@@',
        ' export const one = 1;',
        '-export const two = "two";',
        '+export const two = "TWO";',
        ' export const three = 3;',
        '@@',
        ' // line 11',
        '-export const twelve = 12;',
        '+export const twelve = "TWELVE";',
      ),
      reply('Edited.'),
    );
    await sendMessage(page, 'Shout two');
    await page.getByTestId('agent-message').filter({ hasText: 'Edited.' }).waitFor();
    expect(await readFile(path.join(copy, 'greeting.ts'), 'utf8')).toContain('"TWO"');
    expect(await readFile(path.join(folder, 'greeting.ts'), 'utf8')).toContain('"two"');

    // Changes shows the file with its counts and diff.
    await page.getByTestId('changes-toggle').click();
    const changes = page.getByTestId('changes-panel');
    const file = changes.locator('[data-testid="changes-file"][data-path="greeting.ts"]');
    await file.waitFor();
    expect(await file.locator('.changes-file-counts').innerText()).toBe('+2 −2');
    expect(await changes.locator('[data-line="removed"] .file-diff-text').allTextContents()).toEqual(['removed: export const two = "two";', 'removed: export const twelve = 12;']);
    expect(await changes.locator('[data-line="added"] .file-diff-text').allTextContents()).toEqual(['added: export const two = "TWO";', 'added: export const twelve = "TWELVE";']);
    // Coloured by the file's language once its grammar has loaded.
    await changes.locator('[data-line="added"] .hljs-string').first().waitFor();
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    if (shots) await page.screenshot({ path: path.join(shots, 'changes-unified.png') });
    await changes.getByTestId('changes-split').click();
    await changes.locator('[data-testid="changes-diff"][data-layout="split"]').waitFor();
    if (shots) {
      await page.screenshot({ path: path.join(shots, 'changes-split.png') });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: path.join(shots, 'changes-split-dark.png') });
      await page.emulateMedia({ colorScheme: 'light' });
    }

    // Undo one part: the second hunk goes back, the first stays.
    await changes.getByTestId('changes-revert-hunk').nth(1).click();
    await file.locator('.changes-file-counts').filter({ hasText: '+1 −1' }).waitFor();
    expect(await readFile(path.join(copy, 'greeting.ts'), 'utf8')).toBe(original.replace('"two"', '"TWO"'));
    if (shots) await page.screenshot({ path: path.join(shots, 'changes-hunk-undone.png') });

    // Commit from the panel: the person's name from git config, on the copy's branch only.
    await changes.getByTestId('changes-commit-message').fill('Shout two');
    await changes.getByTestId('changes-commit').click();
    await page.getByTestId('toast').filter({ hasText: /Committed [0-9a-f]{7}/ }).waitFor();
    expect(git(copy, 'log', '-1', '--format=%s|%an')).toBe('Shout two|Person');
    expect(git(folder, 'log', '-1', '--format=%s')).toBe('first');

    // Undo restores the file exactly.
    await changes.getByTestId('changes-undo').click();
    await page.getByTestId('confirm-action').click();
    await changes.getByText('No files changed.').waitFor();
    expect(await readFile(path.join(copy, 'greeting.ts'), 'utf8')).toBe(original);

    // Discard: the confirmation lists what would be lost; the copy and its branch are gone.
    await page.getByTestId('changes-toggle').click();
    await branchMenu.click();
    await page.getByTestId('worktree-discard').click();
    const confirm = page.getByTestId('confirm-dialog');
    await confirm.filter({ hasText: /lost for good: commit [0-9a-f]{7} “Shout two”; uncommitted greeting\.ts/ }).waitFor();
    if (shots) await page.screenshot({ path: path.join(shots, 'worktree-discard.png') });
    await page.getByTestId('confirm-action').click();
    await page.getByTestId('worktree-closed').waitFor();
    expect(existsSync(copy)).toBe(false);
    expect(git(folder, 'branch', '--list', 'wheelhouse/*')).toBe('');

    // A folder dropped onto a browser window: only the desktop app can see where it is, and the window says so.
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File(['x'], 'project'));
      const target = document.querySelector('.app-shell')!;
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await page.getByTestId('toast').filter({ hasText: 'A dropped folder opens as a project in the desktop app' }).waitFor();
    // A whole story of git steps, each a few processes: on a loaded machine it needs more than the default minute.
  }, 240_000);
});
