import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { blocking, runAxe } from './axe.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { sendMessage } from './page-actions.js';

/** WHEELHOUSE_E2E_SCREENSHOTS=<folder> keeps a picture of each step, for looking at the UI. */
async function snap(page: Page, name: string): Promise<void> {
  const folder = process.env['WHEELHOUSE_E2E_SCREENSHOTS'];
  if (folder) await page.screenshot({ path: path.join(folder, `${name}.png`) });
}

/**
 * The agent starts a background job that needs the person's approval: the
 * conversation shows the call with a link to the job, the job page asks, and
 * once approved the job runs while the conversation has moved on.
 */
describe('background jobs from the agent', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  useFirstRunApp({ models: ['mock-coder'], folderPrefix: 'wheelhouse-e2e-bgjobs-' }, (parts) => ({ mock, app, folder } = parts));

  it('links the job_start call to the job page, where the person approves the job and watches it finish', async () => {
    const { page } = app;
    await page.getByTestId('conversation-cwd').filter({ hasText: folder }).waitFor();
    mock.enqueue(
      [
        { type: 'toolCalls', calls: [{ id: 'call_job', name: 'job_start', arguments: JSON.stringify({ command: 'echo building; touch built.txt', name: 'Build in the background' }) }] },
        { type: 'finish', reason: 'tool_calls' },
      ],
      [{ type: 'text', text: 'The build waits for your approval.' }, { type: 'finish' }],
    );
    await sendMessage(page, 'Build it in the background');
    await page.getByTestId('agent-message').filter({ hasText: 'The build waits for your approval.' }).waitFor();
    // Until the person approves, the card does not look started, and its link names the job.
    const card = page.getByTestId('tool-call').filter({ hasText: 'Waiting for your approval to start a background job' });
    const link = card.getByTestId('tool-call-job-link');
    await link.waitFor();
    expect(await link.textContent()).toBe('Review and approve “Build in the background”');
    expect(await page.getByTestId('approvals-badge').textContent()).toContain('1');
    await snap(page, 'bgjobs-1-conversation');
    expect(existsSync(path.join(folder, 'built.txt'))).toBe(false);

    await link.click();
    const jobPage = page.getByTestId('job-page');
    await jobPage.and(page.locator('[data-status="queued"]')).waitFor();
    const approval = page.getByTestId('job-approval');
    await approval.getByTestId('approval-card').waitFor();
    expect(await page.getByTestId('job-detail').textContent()).toBe('waiting for approval');
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    await snap(page, 'bgjobs-2-job-waiting');

    await approval.getByTestId('approval-accept').click();
    await jobPage.and(page.locator('[data-status="completed"]')).waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByTestId('job-timeline').innerText()).toContain('Approved');
    expect(await page.getByTestId('approval-card').count()).toBe(0);
    expect(await page.getByTestId('approvals-badge').count()).toBe(0);
    expect(existsSync(path.join(folder, 'built.txt'))).toBe(true);
    await snap(page, 'bgjobs-3-job-done');

    // The job links back to the conversation it came from.
    expect(await page.getByTestId('job-thread-link').textContent()).toBe('Build it in the background');
    await page.getByTestId('job-thread-link').click();
    await page.getByTestId('agent-message').filter({ hasText: 'The build waits for your approval.' }).waitFor();
    expect(await page.getByTestId('job-page').count()).toBe(0);
    // Once approved the card says the job started, and its link opens the job by name.
    const started = page.getByTestId('tool-call').filter({ hasText: 'Started a background job' });
    await started.waitFor();
    expect(await page.getByTestId('tool-call').filter({ hasText: 'Waiting for your approval' }).count()).toBe(0);
    expect(await started.getByTestId('tool-call-job-link').textContent()).toBe('Open job “Build in the background”');
    await snap(page, 'bgjobs-4-conversation-started');
  });
});
