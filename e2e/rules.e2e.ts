import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { blocking, runAxe } from './axe.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { sendMessage } from './page-actions.js';

function execCall(id: string, cmd: string) {
  return [
    { type: 'toolCalls' as const, calls: [{ id, name: 'exec_command', arguments: JSON.stringify({ cmd }) }] },
    { type: 'finish' as const, reason: 'tool_calls' as const },
  ];
}

/** The person adds a rule in Settings, tests a command against it, and sees the agent's command decided by it. */
describe('command rules and the sandbox', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;
  const shots = process.env['WHEELHOUSE_E2E_SCREENSHOTS'];

  useFirstRunApp({ models: ['mock-coder'], folderPrefix: 'wheelhouse-e2e-rules-' }, (parts) => ({ mock, app, folder } = parts));

  it('a rule added in Settings decides the next command, and every card says what decided', async () => {
    const { page } = app;
    await page.getByTestId('conversation-cwd').filter({ hasText: folder }).waitFor();

    await page.getByTestId('open-settings').click();
    const rules = page.getByTestId('rules-section');
    await rules.waitFor();
    const form = rules.getByTestId('rule-add-form');
    // A bad rule: the runtime's reason shows and nothing is added.
    await form.getByTestId('rule-pattern').fill('git push|');
    await form.getByTestId('rule-submit').click();
    await form.getByTestId('rule-error').filter({ hasText: 'a pattern word cannot be empty' }).waitFor();
    expect(await rules.getByTestId('rule-row').count()).toBe(0);

    await form.getByTestId('rule-pattern').fill('touch ruled.txt');
    await form.getByTestId('rule-decision-allow').click();
    await form.getByTestId('rule-justification').fill('scratch file for the demo');
    await form.getByTestId('rule-submit').click();
    const row = rules.getByTestId('rule-row').filter({ hasText: 'touch ruled.txt' });
    await row.filter({ hasText: 'default.rules:1' }).waitFor();
    expect(await form.getByTestId('rule-pattern').inputValue()).toBe('');

    // The test box asks the runtime; nothing runs.
    await rules.getByTestId('rule-check-input').fill('touch ruled.txt && ls');
    await rules.getByTestId('rule-check-submit').click();
    const result = rules.getByTestId('rule-check-result');
    await result.filter({ hasText: 'Runs without asking' }).waitFor();
    expect(await result.getByTestId('rule-check-decided-by').textContent()).toBe('Allowed by your rule “touch ruled.txt”.');
    // How the runtime read the command is there on demand, its backticks shown as code.
    await result.getByTestId('rule-check-details').locator('summary').click();
    expect(await result.getByTestId('rule-check-details').innerText()).not.toContain('`');
    expect(existsSync(path.join(folder, 'ruled.txt'))).toBe(false);
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    if (shots) {
      await rules.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(shots, 'settings-rules.png') });
    }
    await page.getByTestId('setup-done').click();

    // The header says where commands run.
    const summary = page.getByTestId('sandbox-summary');
    await summary.waitFor();
    const sandboxed = (await page.getByTestId('sandbox-chip').getAttribute('data-sandboxed')) === 'true';
    // The default asks before every change, and the chip says so (not just where commands may write).
    expect(await summary.textContent()).toBe(sandboxed ? 'Asks before changing files or running anything new' : 'Full access; asks before anything not known to be safe');

    // The rule lets the agent's command run without a question, and its card names the rule.
    mock.enqueue(execCall('call_ruled', 'touch ruled.txt && echo made'), [{ type: 'text', text: 'Made it.' }, { type: 'finish' }]);
    await sendMessage(page, 'Make the scratch file');
    const ruled = page.getByTestId('command-card').filter({ hasText: 'touch ruled.txt' });
    await ruled.and(page.locator('[data-status="completed"], [data-status="failed"], [data-status="declined"]')).waitFor({ timeout: 60_000 });
    if (shots) await page.screenshot({ path: path.join(shots, 'ruled-command.png') });
    expect(await ruled.getAttribute('data-status')).toBe('completed');
    await page.getByTestId('agent-message').filter({ hasText: 'Made it.' }).waitFor();
    expect(existsSync(path.join(folder, 'ruled.txt'))).toBe(true);
    await ruled.getByTestId('command-text').click();
    expect(await ruled.getByTestId('decided-by-text').textContent()).toBe('Allowed by your rule “touch ruled.txt”');
    await ruled.getByTestId('decided-by-details').locator('summary').click();
    expect(await ruled.getByTestId('decided-by-details').innerText()).toContain('scratch file for the demo');

    // A command no rule covers asks, and the approval card says the approval policy decided.
    mock.enqueue(execCall('call_other', 'touch other.txt'), [{ type: 'text', text: 'Not made.' }, { type: 'finish' }]);
    await sendMessage(page, 'Make another file');
    const other = page.getByTestId('command-card').filter({ hasText: 'touch other.txt' });
    const approval = other.getByTestId('approval-card');
    await approval.waitFor();
    expect(await approval.getByTestId('decided-by-text').textContent()).toBe('Asks because this thread asks before anything not known to be safe');
    if (shots) await page.screenshot({ path: path.join(shots, 'approval-decided-by.png') });
    await approval.focus();
    await page.keyboard.press('d');
    await other.getByTestId('command-status').filter({ hasText: 'You declined' }).waitFor();
    // The person's own answer, not the words meant for the model.
    expect(await other.getByTestId('decided-by-text').textContent()).toBe('You declined');
    expect(await other.innerText()).not.toContain('Do not retry');
    // The declined turn ends with the model's reply; the next message starts a turn of its own (sent earlier, it would join this one).
    await page.getByTestId('agent-message').filter({ hasText: 'Not made.' }).waitFor();
    await page.getByTestId('stop-button').waitFor({ state: 'detached' });

    // A command naming a host while the sandbox has no network: the card offers to run it with network.
    if (sandboxed) {
      const site = http.createServer((_request, response) => response.end('hello-from-host'));
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = site.address() as AddressInfo;
        mock.enqueue(execCall('call_net', `curl -sS http://127.0.0.1:${port}/`), [{ type: 'text', text: 'Fetched.' }, { type: 'finish' }]);
        await sendMessage(page, 'Fetch the page');
        const fetch = page.getByTestId('command-card').filter({ hasText: 'curl -sS' });
        const allow = fetch.getByTestId('approval-network-allow');
        await allow.filter({ hasText: 'Approve with network for 127.0.0.1' }).waitFor();
        if (shots) await page.screenshot({ path: path.join(shots, 'approval-network.png') });
        await allow.click();
        await fetch.getByTestId('command-status').filter({ hasText: 'Done' }).waitFor({ timeout: 30_000 });
        await page.getByTestId('agent-message').filter({ hasText: 'Fetched.' }).waitFor();
        await fetch.getByTestId('command-text').click(); // finished cards fold away
        await fetch.getByTestId('command-output').filter({ hasText: 'hello-from-host' }).waitFor();
      } finally {
        site.close();
      }
    }

    // The person changes the thread's approval policy in the header; the runtime applies it.
    await page.getByTestId('sandbox-chip').click();
    const editor = page.getByTestId('sandbox-editor');
    await editor.waitFor();
    if (shots) await page.screenshot({ path: path.join(shots, 'sandbox-editor.png') });
    await editor.getByTestId('approval-policy-never').click();
    await editor.getByTestId('approval-policy-never').and(page.locator(':checked')).waitFor();
    if (sandboxed) {
      await editor.getByTestId('sandbox-mode-read-only').click();
      await summary.filter({ hasText: 'Reads only; never asks' }).waitFor();
    } else {
      expect(await editor.getByTestId('sandbox-mode-read-only').isDisabled()).toBe(true);
    }
    await page.keyboard.press('Escape');
    // `never`: a command no rule covers runs without asking now.
    mock.enqueue(execCall('call_never', 'touch never.txt && echo made'), [{ type: 'text', text: 'Ran it.' }, { type: 'finish' }]);
    await sendMessage(page, 'And one more');
    const never = page.getByTestId('command-card').filter({ hasText: 'touch never.txt' });
    await never.getByTestId('command-status').filter({ hasText: sandboxed ? 'Failed (exit code 1)' : 'Done' }).waitFor({ timeout: 20_000 });
    // Read only: the sandbox stopped the write.
    expect(existsSync(path.join(folder, 'never.txt'))).toBe(!sandboxed);
    if (shots) await page.screenshot({ path: path.join(shots, 'sandbox-header.png') });
  });
});
