import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { blocking, runAxe } from './axe.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { createThread, sendMessage } from './page-actions.js';
import { textReply as reply } from '../test-support/agent-commands.js';
import { patchCall, patchOf } from '../test-support/agent-patches.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** Checks the page with axe in the dark scheme (runAxe lets the colour transitions end first), screenshots it when asked, and goes back to light. */
async function inDarkScheme(page: WheelhouseApp['page'], shot: string | undefined): Promise<void> {
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
  if (shot) await page.screenshot({ path: shot });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Review changes from the Changes panel: a review turn whose findings show on the diff at their lines and in the thread. */
describe('review of changes', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  let folder: string;

  useFirstRunApp({ models: ['mock-coder'], folderPrefix: 'wheelhouse-e2e-review-' }, (parts) => ({ mock, app, folder } = parts));

  it('reviews the agent’s edit: findings on the diff at their lines, listed in the thread', async () => {
    const { page } = app;
    const shots = process.env.WHEELHOUSE_E2E_SCREENSHOTS;
    if (shots) mkdirSync(shots, { recursive: true });
    const original = ['export function total(prices: number[]): number {', '  let sum = 0;', '  for (const price of prices) sum += price;', '  return sum;', '}', ''].join('\n');
    await writeFile(path.join(folder, 'total.ts'), original);
    git(folder, 'init', '-q', '-b', 'main');
    git(folder, 'add', '.');
    git(folder, '-c', 'user.name=Person', '-c', 'user.email=person@example.com', 'commit', '-q', '-m', 'first');
    await page.getByTestId('conversation-project').click();
    const panel = page.getByTestId('project-panel');
    await panel.getByTestId('project-repo').filter({ hasText: 'main · clean' }).waitFor();
    await panel.getByTestId('project-sandbox').selectOption('danger-full-access');
    await panel.getByTestId('project-approvals').selectOption('never');
    await expect.poll(() => readFile(path.join(app.home, 'config.toml'), 'utf8')).toContain('approval_policy = "never"');
    await panel.getByRole('button', { name: 'Close' }).click();
    await createThread(page, { folder });

    mock.enqueue(
      patchCall(patchOf('*** Update File: total.ts', '@@', '   let sum = 0;', '-  for (const price of prices) sum += price;', '+  for (let i = 1; i < prices.length; i++) sum += prices[i];', '   return sum;')),
      reply('Rewrote the loop.'),
    );
    await sendMessage(page, 'Use an index loop');
    await page.getByTestId('agent-message').filter({ hasText: 'Rewrote the loop.' }).waitFor();

    await page.getByTestId('changes-toggle').click();
    const changes = page.getByTestId('changes-panel');
    await changes.locator('[data-testid="changes-file"][data-path="total.ts"]').waitFor();
    const finding = {
      title: '[P1] The loop skips the first price',
      body: 'Starting at `i = 1` leaves `prices[0]` out of the sum, so every total is short by the first item.',
      confidence_score: 0.9,
      priority: 1,
      code_location: { absolute_file_path: path.join(folder, 'total.ts'), line_range: { start: 3, end: 3 } },
    };
    mock.enqueue(reply(JSON.stringify({ findings: [finding], overall_correctness: 'patch is incorrect', overall_explanation: 'The new loop drops the first price.', overall_confidence_score: 0.85 })));
    await changes.getByTestId('changes-review').click();
    await page.getByRole('menu', { name: 'Review' }).getByTestId('review-current').click();

    // In the thread: what was reviewed, then the verdict and the finding with its place.
    await page.getByTestId('review-started').filter({ hasText: 'Review of current changes' }).waitFor();
    const result = page.getByTestId('review-result');
    await result.filter({ hasText: 'Review: 1 finding' }).filter({ hasText: 'Needs changes' }).waitFor();
    expect(await result.getByTestId('review-finding').locator('.review-finding-place').innerText()).toBe('total.ts:3');
    // The model's JSON itself is not shown as a reply.
    expect(await page.getByTestId('agent-message').filter({ hasText: 'confidence_score' }).count()).toBe(0);

    // On the diff: under the line it points at (new line 3, the added loop), with its priority.
    const note = changes.getByTestId('changes-finding');
    await note.waitFor();
    const lineAbove = note.locator('xpath=preceding-sibling::div[1]');
    expect(await lineAbove.getAttribute('data-line')).toBe('added');
    expect(await lineAbove.locator('.file-diff-number').nth(1).innerText()).toBe('3');
    expect(await note.locator('.review-finding-priority').innerText()).toBe('P1');
    expect(await note.locator('.review-finding-title').innerText()).toBe('The loop skips the first price');
    expect(await note.innerText()).toContain('leaves prices[0] out of the sum');
    expect(await changes.locator('[data-path="total.ts"] [data-testid="changes-file-findings"]').innerText()).toBe('1');
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    if (shots) await page.screenshot({ path: path.join(shots, 'review-unified.png') });

    // Side by side: the note follows the new side's line.
    await changes.getByTestId('changes-split').click();
    await changes.locator('[data-testid="changes-diff"][data-layout="split"] [data-testid="changes-finding"]').waitFor();
    if (shots) {
      await page.screenshot({ path: path.join(shots, 'review-split.png') });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: path.join(shots, 'review-split-dark.png') });
      await page.emulateMedia({ colorScheme: 'light' });
    }
  }, 180_000);

  it('reviews the branch against a base branch; a branch that is not there is refused next to its field and starts no turn', async () => {
    const { page } = app;
    const shots = process.env.WHEELHOUSE_E2E_SCREENSHOTS;
    if (shots) mkdirSync(shots, { recursive: true });
    const commit = (message: string) => git(folder, '-c', 'user.name=Person', '-c', 'user.email=person@example.com', 'commit', '-q', '-am', message);
    await writeFile(path.join(folder, 'total.ts'), ['export function total(prices: number[]): number {', '  let sum = 0;', '  for (const price of prices) sum += price;', '  return sum;', '}', ''].join('\n'));
    git(folder, 'init', '-q', '-b', 'main');
    git(folder, 'add', '.');
    commit('first');
    git(folder, 'checkout', '-q', '-b', 'index-loop');
    await writeFile(path.join(folder, 'total.ts'), ['export function total(prices: number[]): number {', '  let sum = 0;', '  for (let i = 1; i < prices.length; i++) sum += prices[i];', '  return sum;', '}', ''].join('\n'));
    commit('Use an index loop');
    await createThread(page, { folder });
    mock.enqueue(reply('Hello.'));
    await sendMessage(page, 'Hi');
    await page.getByTestId('agent-message').filter({ hasText: 'Hello.' }).waitFor();

    await page.getByTestId('changes-toggle').click();
    const changes = page.getByTestId('changes-panel');
    await changes.getByTestId('changes-review').click();
    const menu = page.getByRole('menu', { name: 'Review' });
    await menu.waitFor();
    // Nothing uncommitted: "Current changes" is off; focus is on the first choice that is not.
    expect(await menu.getByTestId('review-current').isDisabled()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('review-branch');
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    if (shots) await page.screenshot({ path: path.join(shots, 'review-menu.png') });
    await inDarkScheme(page, shots && path.join(shots, 'review-menu-dark.png'));

    // By keyboard: Enter opens the branch form, its field focused and prefilled with main.
    await page.keyboard.press('Enter');
    const form = page.getByTestId('review-target-form');
    const branch = form.getByTestId('review-branch-name');
    await branch.waitFor();
    expect(await branch.inputValue()).toBe('main');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('review-branch-name');

    const requestsBefore = mock.requests.length;
    await branch.fill('nope');
    await branch.press('Enter');
    await form.getByTestId('review-target-refusal').filter({ hasText: 'There is no branch named “nope”' }).waitFor();
    expect(await branch.getAttribute('aria-invalid')).toBe('true');
    expect(blocking(await runAxe(page)).map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
    if (shots) await page.screenshot({ path: path.join(shots, 'review-branch-refused.png') });
    await inDarkScheme(page, shots && path.join(shots, 'review-branch-refused-dark.png'));
    expect(await page.getByTestId('review-started').count()).toBe(0);

    const finding = {
      title: '[P1] The loop skips the first price',
      body: 'Starting at `i = 1` leaves `prices[0]` out of the sum.',
      confidence_score: 0.9,
      priority: 1,
      code_location: { absolute_file_path: path.join(folder, 'total.ts'), line_range: { start: 3, end: 3 } },
    };
    mock.enqueue(reply(JSON.stringify({ findings: [finding], overall_correctness: 'patch is incorrect', overall_explanation: 'The branch drops the first price.', overall_confidence_score: 0.8 })));
    await branch.fill('main');
    expect(await form.getByTestId('review-target-refusal').count()).toBe(0);
    await branch.press('Enter');
    await form.waitFor({ state: 'detached' });
    await page.getByTestId('review-started').filter({ hasText: "Review of changes against 'main'" }).waitFor();
    const result = page.getByTestId('review-result');
    await result.filter({ hasText: 'Review: 1 finding' }).filter({ hasText: 'Needs changes' }).waitFor();
    expect(await result.getByTestId('review-finding').locator('.review-finding-place').innerText()).toBe('total.ts:3');
    // The refused branch asked the model nothing: the one review request since is of main, with the branch's commit in it.
    const reviews = mock.requests.slice(requestsBefore).filter((request) => request.rawBody.includes('Review the changes'));
    expect(reviews.length).toBe(1);
    expect(reviews[0]?.rawBody).toContain("against the base branch 'main'");
    expect(reviews[0]?.rawBody).toContain('for (let i = 1; i < prices.length; i++)');
    expect(mock.requests.slice(requestsBefore).some((request) => request.rawBody.includes("'nope'"))).toBe(false);

    // A commit the repository lacks is refused the same way; Escape closes the form and focus goes back to Review.
    await changes.getByTestId('changes-review').click();
    await page.getByRole('menu', { name: 'Review' }).getByTestId('review-commit').click();
    const sha = form.getByTestId('review-commit-sha');
    await sha.fill('deadbeef');
    await sha.press('Enter');
    await form.getByTestId('review-target-refusal').filter({ hasText: 'There is no commit “deadbeef”' }).waitFor();
    await sha.press('Escape');
    await form.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('changes-review');
    expect(await page.getByTestId('review-started').count()).toBe(1);
  }, 180_000);
});
