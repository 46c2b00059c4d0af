import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { blocking, runAxe } from './axe.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';

/** WHEELHOUSE_E2E_SCREENSHOTS=<folder> keeps a picture of each step, for looking at the UI. */
async function snap(page: Page, name: string): Promise<void> {
  const folder = process.env['WHEELHOUSE_E2E_SCREENSHOTS'];
  if (folder) await page.screenshot({ path: path.join(folder, `${name}.png`) });
}

const toolCall = (id: string, name: string, args: unknown) => [
  { type: 'toolCalls' as const, calls: [{ id, name, arguments: JSON.stringify(args) }] },
  { type: 'finish' as const, reason: 'tool_calls' as const, usage: { inputTokens: 300, outputTokens: 40 } },
];
const reply = (text: string) => [{ type: 'text' as const, text }, { type: 'finish' as const, usage: { inputTokens: 300, outputTokens: 20 } }];
const axeProblems = async (page: Page) => blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`);

/**
 * A person starts an agent with a goal from the New job dialog; the job waits
 * for their approval (visible on the dashboard), they review it in the
 * conversation, and the job completes with its conversation a click away.
 */
describe('agent jobs on the dashboard', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  useFirstRunApp({ models: ['mock-coder'], folderPrefix: 'wheelhouse-e2e-agent-jobs-' }, (parts) => ({ mock, app, folder } = parts));

  it('creates an agent job from the dialog, waits for approval, and completes with its thread link', async () => {
    const { page } = app;
    mock.enqueue(
      toolCall('c1', 'report_progress', { percent: 30, note: 'looked around' }),
      toolCall('c2', 'exec_command', { cmd: 'touch notes-from-agent.txt' }),
      toolCall('c3', 'update_goal', { status: 'complete' }),
      reply('The notes file is there: the goal is achieved.'),
    );
    await page.getByTestId('open-jobs').click();
    await page.getByTestId('jobs-view').waitFor();
    await page.getByTestId('new-job').click();
    const dialog = page.getByTestId('new-job-dialog');
    await dialog.getByTestId('job-kind-agent').click();
    await dialog.getByTestId('job-name').fill('Leave notes');
    await dialog.getByTestId('folder-input').fill(folder);
    await dialog.getByTestId('job-objective').fill('Create notes-from-agent.txt in the project');
    await dialog.getByTestId('job-token-budget').fill('20000');
    await dialog.getByTestId('job-time-budget').fill('30');
    await dialog.getByTestId('job-approval-policy').selectOption('untrusted');
    // A plain folder has no separate copies: the choice is not offered.
    expect(await dialog.getByTestId('job-worktree').count()).toBe(0);
    await snap(page, 'agent-1-new-job-dialog');
    expect(await axeProblems(page)).toEqual([]);
    await dialog.getByTestId('job-submit').click();

    const jobPage = page.getByTestId('job-page');
    await page.getByTestId('job-waiting-approval').filter({ hasText: 'touch notes-from-agent.txt' }).waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('job-page-status').textContent()).toBe('Waiting for approval');
    expect(await page.getByTestId('job-objective-fact').textContent()).toBe('Create notes-from-agent.txt in the project');
    expect(await page.getByTestId('job-tokens').textContent()).toMatch(/^[\d,]+ of 20,000 tokens$/);
    expect(await page.getByTestId('job-progress-label').first().textContent()).toContain('30%');
    expect(existsSync(path.join(folder, 'notes-from-agent.txt'))).toBe(false);
    await snap(page, 'agent-2-job-waiting');
    expect(await axeProblems(page)).toEqual([]);

    // The dashboard row says it too.
    await page.getByTestId('job-back').click();
    const row = page.getByTestId('job-row').filter({ hasText: 'Leave notes' });
    expect(await row.getByTestId('job-status').textContent()).toBe('Waiting for approval');
    expect(await row.textContent()).toContain('of 20,000 tokens');
    await snap(page, 'agent-3-jobs-list-waiting');

    // Review opens the job's conversation, where the approval card is.
    await row.click();
    await page.getByTestId('job-review-approval').click();
    const card = page.getByTestId('command-card').filter({ hasText: 'touch notes-from-agent.txt' });
    await card.getByTestId('approval-card').waitFor();
    // What Wheelhouse told the agent is its own quiet line, not a message from the person; the text is there on demand.
    const instruction = page.getByTestId('job-instruction');
    expect(await instruction.locator('summary').innerText()).toContain('Wheelhouse started the job');
    expect(await page.getByTestId('user-message').count()).toBe(0);
    expect(await instruction.getByText('You are running unattended').isVisible()).toBe(false);
    await snap(page, 'agent-4-approval-in-conversation');
    await card.getByTestId('approval-accept').click();
    // Once answered, the request's toast is no longer news.
    await page.getByTestId('toast').filter({ hasText: 'Approve a command?' }).waitFor({ state: 'detached' });
    await page.getByTestId('agent-message').filter({ hasText: 'the goal is achieved' }).waitFor({ timeout: 20_000 });
    expect(existsSync(path.join(folder, 'notes-from-agent.txt'))).toBe(true);

    await page.getByTestId('open-jobs').click();
    await page.getByTestId('job-row').filter({ hasText: 'Leave notes' }).and(page.locator('[data-status="completed"]')).click();
    await jobPage.and(page.locator('[data-status="completed"]')).waitFor();
    await expect.poll(() => page.getByTestId('job-detail').textContent()).toBe('goal complete after 1 turn');
    // The page says what the agent answered and what it did, without opening the conversation.
    await page.getByTestId('job-answer').filter({ hasText: 'the goal is achieved' }).waitFor();
    expect(await page.getByTestId('job-answer').locator('h3').textContent()).toBe('Final answer');
    const step = page.getByTestId('job-activity').locator('li').filter({ hasText: 'Ran touch notes-from-agent.txt' });
    expect(await step.locator('.agent-job-step-result').textContent()).toBe('done');
    // The job has ended: nothing on its page still says it is running.
    expect(await page.getByTestId('job-activity').innerText()).not.toContain('running');
    expect(await axeProblems(page)).toEqual([]);
    await snap(page, 'agent-5-job-completed');
    await page.getByTestId('job-thread-link').click();
    await page.getByTestId('agent-message').filter({ hasText: 'the goal is achieved' }).waitFor();
    await page.getByTestId('jobs-view').waitFor({ state: 'detached' });
  });

  it('offers an agent job its own copy in a git repository, and the job works on its own branch', async () => {
    const { page } = app;
    const repo = path.join(folder, 'repo');
    mkdirSync(repo, { recursive: true });
    writeFileSync(path.join(repo, 'README.md'), 'hello\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@p', ...args], { cwd: repo, encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    mock.enqueue(toolCall('c1', 'update_goal', { status: 'complete' }), reply('Nothing to do: the goal is achieved.'));
    await page.getByTestId('open-jobs').click();
    await page.getByTestId('jobs-view').waitFor();
    await page.getByTestId('new-job').click();
    const dialog = page.getByTestId('new-job-dialog');
    await dialog.getByTestId('job-kind-agent').click();
    await dialog.getByTestId('folder-input').fill(repo);
    const copy = dialog.getByTestId('job-worktree');
    await copy.waitFor();
    expect(await dialog.locator('.project-worktree').innerText()).toContain('own branch from main');
    await copy.check();
    await dialog.getByTestId('job-objective').fill('Tidy the readme');
    await dialog.getByTestId('job-approval-policy').selectOption('never');
    expect(await axeProblems(page)).toEqual([]);
    await snap(page, 'agent-job-own-copy');
    await dialog.getByTestId('job-submit').click();
    await page.getByTestId('job-page').waitFor();
    await expect.poll(() => git('branch', '--list', 'wheelhouse/job-*')).toMatch(/wheelhouse\/job-/);
    // The person's checkout stays on its branch.
    expect(git('branch', '--show-current')).toBe('main');
  });
});
