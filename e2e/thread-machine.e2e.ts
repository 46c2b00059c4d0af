import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockModelServer } from '../test-support/mock-model/index.js';
import { sshdUnavailable, startSshd, type TestSshd } from '../test-support/sshd.js';
import { blocking, runAxe } from './axe.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { sendMessage } from './page-actions.js';

/** WHEELHOUSE_E2E_SCREENSHOTS=<folder> keeps a picture of each step, for looking at the UI. */
async function snap(page: Page, name: string, part?: Locator): Promise<void> {
  const folder = process.env['WHEELHOUSE_E2E_SCREENSHOTS'];
  if (!folder) return;
  const file = path.join(folder, `thread-machine-${name}.png`);
  await (part ? part.screenshot({ path: file }) : page.screenshot({ path: file }));
}

const axeProblems = async (page: Page) => blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`);

function execCall(id: string, cmd: string) {
  return [
    { type: 'toolCalls' as const, calls: [{ id, name: 'exec_command', arguments: JSON.stringify({ cmd }) }] },
    { type: 'finish' as const, reason: 'tool_calls' as const },
  ];
}

/**
 * A person moves a thread's work onto a computer over SSH (Debian's sshd on
 * 127.0.0.1) from the conversation header; the agent's next command asks,
 * runs there, and its card says where it ran.
 */
describe.skipIf(sshdUnavailable() !== null)('a thread on an SSH machine, in Chromium', () => {
  let sshd: TestSshd;
  let sshdDir: string;
  let remoteFolder: string;
  let mock: MockModelServer;
  let app: WheelhouseApp;

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
  useFirstRunApp({ models: ['mock-coder'], folderPrefix: 'wheelhouse-e2e-thread-machine-' }, (parts) => ({ mock, app } = parts));

  it('picks the machine in the header, runs the next command there after asking, and names the machine on its card', async () => {
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
    await snap(page, '1-pick-machine');
    expect(await axeProblems(page)).toEqual([]);
    await editor.getByTestId('machine-apply').click();
    await editor.waitFor({ state: 'detached' });
    await expect.poll(() => chip.textContent()).toBe(`Build box: ${remoteFolder}`);

    // The next command asks first (this computer's sandbox does not reach there), then runs there.
    mock.enqueue(execCall('call_remote', 'echo "in $(pwd) over ${SSH_CONNECTION%% *}"'), [{ type: 'text', text: 'It ran there.' }, { type: 'finish' }]);
    await sendMessage(page, 'Where are you?');
    const card = page.getByTestId('command-card').filter({ hasText: 'SSH_CONNECTION' });
    await card.getByTestId('approval-card').waitFor();
    expect(await card.getByTestId('command-where').textContent()).toBe('on Build box');
    await snap(page, '2-asks', card);
    expect(await axeProblems(page)).toEqual([]);
    await card.getByTestId('approval-accept').click();
    await page.getByTestId('agent-message').filter({ hasText: 'It ran there.' }).waitFor();
    await card.getByTestId('command-status').filter({ hasText: 'Done' }).waitFor();
    await card.getByTestId('command-text').click();
    await card.getByTestId('command-output').filter({ hasText: `in ${remoteFolder} over 127.0.0.1` }).waitFor();
    await expect.poll(() => chip.getAttribute('data-state')).toBe('connected');
    await snap(page, '3-ran-there');
    expect(app.errors).toEqual([]);
  });
});
