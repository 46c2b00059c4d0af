import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { sendMessage } from './page-actions.js';

function execCall(id: string, args: Record<string, unknown>) {
  return [
    { type: 'toolCalls' as const, calls: [{ id, name: 'exec_command', arguments: JSON.stringify(args) }] },
    { type: 'finish' as const, reason: 'tool_calls' as const },
  ];
}

/**
 * What the person approves is what runs: a command the agent asks to run
 * outside the sandbox says so on its card and, approved, runs there; one the
 * sandbox stops is offered again, one click, without the sandbox.
 */
describe('escalation: approving where a command runs', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;
  // Outside the thread's folder and outside /tmp (the workspace-write sandbox may write /tmp).
  const outside = mkdtempSync(path.join(os.homedir(), 'wheelhouse-e2e-outside-'));
  afterAll(() => rmSync(outside, { recursive: true, force: true }));

  useFirstRunApp({ models: ['mock-coder'], folderPrefix: 'wheelhouse-e2e-escalation-' }, (parts) => ({ mock, app, folder } = parts));

  it('shows an escalated request as running outside the sandbox, approves it, and the command succeeds', async () => {
    const { page } = app;
    await page.getByTestId('conversation-cwd').filter({ hasText: folder }).waitFor();
    const target = path.join(outside, 'escalated');
    mock.enqueue(
      execCall('call_escalate', { cmd: `mkdir ${target}`, sandbox_permissions: 'require_escalated', justification: 'Create a folder beside the project' }),
      [{ type: 'text', text: 'Made it.' }, { type: 'finish' }],
    );
    await sendMessage(page, 'Make a folder beside the project');

    const card = page.getByTestId('command-card').filter({ hasText: `mkdir ${target}` });
    const approval = card.getByTestId('approval-card');
    await approval.waitFor();
    const runsIn = approval.getByTestId('approval-runs-in');
    expect(await runsIn.getAttribute('data-runs-in')).toBe('noSandbox');
    expect(await runsIn.textContent()).toContain('Runs outside the sandbox');
    expect(await approval.getByTestId('approval-agent-says').textContent()).toContain('Create a folder beside the project');
    await page.screenshot({ path: '/tmp/shots/codex-wire/escalated-approval.png' });

    await approval.getByTestId('approval-accept').click();
    await card.getByTestId('command-status').filter({ hasText: 'Done' }).waitFor();
    await page.getByTestId('agent-message').filter({ hasText: 'Made it.' }).waitFor();
    expect(existsSync(target)).toBe(true);
    expect(app.errors).toEqual([]);
  });

  it('offers to run a command the sandbox stopped again without it, and tells the model', async () => {
    const { page } = app;
    const target = path.join(outside, 'retried.txt');
    mock.enqueue(execCall('call_touch', { cmd: `touch ${target}` }), [{ type: 'text', text: 'Touched.' }, { type: 'finish' }]);
    await sendMessage(page, 'Touch a file beside the project');

    const cards = page.getByTestId('command-card').filter({ hasText: `touch ${target}` });
    const first = cards.first().getByTestId('approval-card');
    await first.waitFor();
    expect(await first.getByTestId('approval-runs-in').getAttribute('data-runs-in')).toBe('sandbox');
    await first.getByTestId('approval-accept').click();

    // The sandbox stops it; the person is asked, on a card, to run it again without the sandbox.
    const retry = cards.last().getByTestId('approval-card');
    await retry.getByTestId('approval-accept').filter({ hasText: 'Run again without the sandbox' }).waitFor();
    expect(await retry.getByTestId('approval-runs-in').getAttribute('data-runs-in')).toBe('noSandbox');
    expect(existsSync(target)).toBe(false);
    await page.screenshot({ path: '/tmp/shots/codex-wire/sandbox-denial-retry.png' });
    await retry.getByTestId('approval-accept').click();

    await page.getByTestId('agent-message').filter({ hasText: 'Touched.' }).waitFor();
    expect(existsSync(target)).toBe(true);
    const told = mock.requests.at(-1)?.rawBody ?? '';
    expect(told).toContain('Read-only file system');
    expect(told).toContain('The sandbox stopped this command; the person allowed running it again without the sandbox, and it ran:\\nExit code: 0');
    // One answer per call: the model never sees the same call twice.
    expect(told.split('"tool_call_id":"call_touch"').length - 1).toBe(1);
    expect(app.errors).toEqual([]);
  });
});
