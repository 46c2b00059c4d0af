import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockModelServer } from '../test-support/mock-model/index.js';
import { sshdUnavailable, startSshd, type TestSshd } from '../test-support/sshd.js';
import { execCall, textReply } from '../test-support/agent-commands.js';
import { patchCall, patchOf } from '../test-support/agent-patches.js';
import { axeProblems } from './axe.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { sendMessage } from './page-actions.js';
import { snap } from './screenshots.js';

/**
 * A person moves a thread's work onto a computer over SSH (Debian's sshd on
 * 127.0.0.1) from the conversation header; the agent's next command asks,
 * runs there, and its card says where it ran; its patches change the files
 * there, and their cards say that no checkpoint covers them.
 */
describe.skipIf(sshdUnavailable() !== null)('a thread on an SSH machine, in Chromium', () => {
  let sshd: TestSshd;
  let sshdDir: string;
  let remoteFolder: string;
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  beforeAll(async () => {
    sshdDir = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-sshd-'));
    sshd = await startSshd(sshdDir);
    remoteFolder = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-remote-folder-'));
  });
  afterAll(async () => {
    await sshd?.stop();
    await rm(sshdDir, { recursive: true, force: true });
    await rm(remoteFolder, { recursive: true, force: true });
  });
  useFirstRunApp({ models: ['mock-coder'], folderPrefix: 'wheelhouse-e2e-thread-machine-' }, (parts) => ({ mock, app, folder } = parts));

  it('picks the machine in the header, runs the next command there after asking, names the machine on its card, and the terminal follows the thread', async () => {
    const { page } = app;
    // The machine, added and trusted in Settings → Machines (machines.e2e.ts covers that page).
    await page.getByTestId('open-settings').click();
    const section = page.getByTestId('machines-section');
    await section.getByTestId('machines-add').click();
    const form = section.getByTestId('machine-form');
    await form.getByTestId('machine-name').fill('Build box');
    await form.getByTestId('machine-user').fill(sshd.user);
    await form.getByTestId('machine-host').fill(sshd.host);
    await form.getByTestId('machine-port').fill(String(sshd.port));
    await form.getByTestId('machine-privateKey').fill(sshd.privateKey);
    await form.getByTestId('machine-add').click();
    const row = section.locator('[data-testid="machine-row"][data-environment-id="build-box"]');
    await row.getByTestId('machine-trust').click();
    await row.getByTestId('machine-test-ok').waitFor();
    await page.getByTestId('setup-done').click();

    // The header says where commands run, and picks another machine with its folder there.
    const chip = page.getByTestId('machine-chip');
    await expect.poll(() => chip.textContent()).toBe('This computer');
    await chip.click();
    const editor = page.getByTestId('machine-editor');
    await editor.getByTestId('machine-choice').selectOption('build-box');
    await editor.getByTestId('machine-folder').fill('not/a/full/path');
    await editor.getByTestId('machine-apply').click();
    await editor.getByTestId('machine-error').filter({ hasText: 'must be a full path there' }).waitFor();
    await editor.getByTestId('machine-folder').fill(remoteFolder);
    await snap(page, 'thread-machine-1-pick-machine');
    expect(await axeProblems(page)).toEqual([]);
    await editor.getByTestId('machine-apply').click();
    await editor.waitFor({ state: 'detached' });
    await expect.poll(() => chip.textContent()).toBe(`Build box: ${remoteFolder}`);

    // The next command asks first (this computer's sandbox does not reach there), then runs there.
    mock.enqueue(execCall('echo "in $(pwd) over ${SSH_CONNECTION%% *}"', {}, 'call_remote'), textReply('It ran there.'));
    await sendMessage(page, 'Where are you?');
    const card = page.getByTestId('command-card').filter({ hasText: 'SSH_CONNECTION' });
    await card.getByTestId('approval-card').waitFor();
    expect(await card.getByTestId('command-where').textContent()).toBe('on Build box');
    await snap(page, 'thread-machine-2-asks', card);
    expect(await axeProblems(page)).toEqual([]);
    await card.getByTestId('approval-accept').click();
    await page.getByTestId('agent-message').filter({ hasText: 'It ran there.' }).waitFor();
    await card.getByTestId('command-status').filter({ hasText: 'Done' }).waitFor();
    await card.getByTestId('command-text').click();
    await card.getByTestId('command-output').filter({ hasText: `in ${remoteFolder} over 127.0.0.1` }).waitFor();
    await expect.poll(() => chip.getAttribute('data-state')).toBe('connected');
    await snap(page, 'thread-machine-3-ran-there');

    // A patch changes the file there (over SFTP) after asking, and its card says Undo does not reach there.
    await writeFile(path.join(remoteFolder, 'greeting.txt'), 'hello\nold line\n');
    mock.enqueue(patchCall(patchOf('*** Update File: greeting.txt', '@@', ' hello', '-old line', '+new line'), 'call_remote_patch'), textReply('Edited it there.'));
    await sendMessage(page, 'Fix the greeting there');
    const patchCard = page.getByTestId('file-change-card').filter({ hasText: 'Edited greeting.txt' });
    await patchCard.getByTestId('file-approval-card').waitFor();
    expect(await patchCard.getByTestId('file-change-where').textContent()).toBe('on Build box');
    expect(await patchCard.getByTestId('file-diff-path').allTextContents()).toEqual(['greeting.txt']);
    await patchCard.getByTestId('file-approval-accept').click();
    await patchCard.getByTestId('file-change-status').filter({ hasText: 'Applied' }).waitFor();
    await page.getByTestId('agent-message').filter({ hasText: 'Edited it there.' }).waitFor();
    expect(await readFile(path.join(remoteFolder, 'greeting.txt'), 'utf8')).toBe('hello\nnew line\n');
    expect(await patchCard.getByTestId('file-change-no-undo').textContent()).toContain('Wheelhouse keeps no checkpoint there');
    await snap(page, 'thread-machine-3b-patch-there', patchCard);
    expect(await axeProblems(page)).toEqual([]);

    // The thread's terminal opens there too, in the folder there, and says so.
    await page.getByTestId('terminal-toggle').click();
    const panel = page.getByTestId('terminal-panel');
    await panel.waitFor();
    expect(await panel.getByTestId('terminal-machine').textContent()).toBe('on Build box');
    await panel.locator('.xterm').click();
    // The arithmetic makes the output differ from the echoed keystrokes.
    await page.keyboard.type('echo "there$((6*7))"; pwd; echo "${SSH_CONNECTION%% *}"\n');
    const rows = panel.locator('.xterm-rows');
    await rows.filter({ hasText: 'there42' }).waitFor();
    await expect.poll(() => rows.textContent()).toContain(remoteFolder);
    await expect.poll(() => rows.textContent()).toContain('127.0.0.1');
    await snap(page, 'thread-machine-4-terminal-there');
    expect(await axeProblems(page)).toEqual([]);

    // The thread moves back to this computer: the open terminal says plainly it is still on Build box.
    await chip.click();
    await editor.getByTestId('machine-choice').selectOption('local');
    await editor.getByTestId('machine-apply').click();
    await editor.waitFor({ state: 'detached' });
    await expect.poll(() => chip.textContent()).toBe('This computer');
    expect(await panel.getByTestId('terminal-machine').textContent()).toBe('on Build box');
    await expect.poll(() => panel.getByTestId('terminal-moved').textContent()).toContain('This shell is still on Build box; the thread now works on This computer');
    await snap(page, 'thread-machine-5-terminal-stays');
    expect(await axeProblems(page)).toEqual([]);
    await panel.locator('.xterm').click();
    await page.keyboard.type('echo "still$((6*7))-${SSH_CONNECTION%% *}"\n');
    await rows.filter({ hasText: 'still42-127.0.0.1' }).waitFor();

    // Opened again, the terminal is a shell on this computer, in the thread's folder here.
    await page.getByTestId('terminal-close').click();
    await panel.waitFor({ state: 'detached' });
    await page.getByTestId('terminal-toggle').click();
    await panel.waitFor();
    expect(await panel.getByTestId('terminal-machine').count()).toBe(0);
    expect(await panel.getByTestId('terminal-moved').count()).toBe(0);
    await panel.locator('.xterm').click();
    await page.keyboard.type('echo "here$((6*7))"; pwd\n');
    await rows.filter({ hasText: 'here42' }).waitFor();
    await expect.poll(() => rows.textContent()).toContain(folder);
    expect(await rows.textContent()).not.toContain(remoteFolder);
    await snap(page, 'thread-machine-6-terminal-here');

    expect(app.errors).toEqual([]);
  }, 180_000);
});
