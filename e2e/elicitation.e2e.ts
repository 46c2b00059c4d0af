import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type MockModelServer } from '../test-support/mock-model/index.js';
import { everythingServerScript } from '../test-support/mcp-servers.js';
import { blocking, runAxe } from './axe.js';
import { useFirstRunApp } from './first-run-app.js';
import type { WheelhouseApp } from './harness.js';
import { addMcpServer, sendMessage } from './page-actions.js';
import { shootBothSchemes } from './screenshots.js';

/**
 * MCP elicitation as a person sees it: the agent calls server-everything's
 * `trigger-elicitation-request`, a form built from the server's schema asks
 * for input, and what the person fills in reaches the server (its tool
 * result shows it). A second window sees the same question and loses it
 * when the first one answers.
 */
/** Adds server-everything on the Connections page, unless an earlier test did. */
async function connectEverything(page: WheelhouseApp['page']): Promise<void> {
  await page.getByTestId('open-connections').click();
  const ready = page.locator('[data-testid="mcp-server"][data-name="everything"][data-state="ok"]');
  if ((await page.locator('[data-testid="mcp-server"][data-name="everything"]').count()) === 0) {
    await addMcpServer(page, { name: 'everything', command: process.execPath, args: everythingServerScript });
  }
  await ready.waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Close Connections' }).click();
}

describe('MCP elicitation', () => {
  let mock: MockModelServer;
  let app: WheelhouseApp;
  const shots = process.env['WHEELHOUSE_E2E_SCREENSHOTS'];

  useFirstRunApp({ models: ['mock-coder'], readme: true }, (parts) => ({ mock, app } = parts));

  it('asks with a form built from the server’s schema; the answer reaches the server', async () => {
    const { page } = app;
    await connectEverything(page);

    const second = app.openSecondClient ? await app.openSecondClient() : null;
    mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'c1', name: 'mcp__everything__trigger-elicitation-request', arguments: '{}' }] }, { type: 'finish' }],
      [{ type: 'text', text: 'Thanks for the details.' }, { type: 'finish' }],
    );
    await sendMessage(page, 'ask me for my details');

    const dialog = page.getByTestId('elicitation-dialog');
    await dialog.waitFor({ timeout: 30_000 });
    await expect(dialog.getByRole('heading').textContent()).resolves.toBe('everything asks');
    await expect(dialog.textContent()).resolves.toContain('Please provide inputs for the following fields');
    // Defaults from the schema are filled in; descriptions describe their fields.
    await expect(dialog.getByLabel('Integer (optional)', { exact: true }).inputValue()).resolves.toBe('42');
    await expect(dialog.locator('[data-field="titledSingleSelectEnum"]').inputValue()).resolves.toBe('hero-1');
    await expect(dialog.getByLabel('String', { exact: true }).getAttribute('aria-describedby')).resolves.toBeTruthy();
    if (second) await second.getByTestId('elicitation-dialog').waitFor({ timeout: 30_000 });

    const violations = blocking(await runAxe(page));
    expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);

    // Focus starts in the form and Tab stays in it (the page behind is inert).
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      await expect(page.evaluate(() => !!document.activeElement?.closest('[data-testid="elicitation-dialog"]'))).resolves.toBe(true);
    }

    // The required name is missing: Accept shows why and sends nothing.
    await dialog.getByTestId('elicitation-accept').click();
    await expect(dialog.getByText('Required.').count()).resolves.toBe(1);
    await dialog.getByLabel('String', { exact: true }).fill('Ada Lovelace');
    await expect(dialog.getByText('Required.').count()).resolves.toBe(0);
    await dialog.getByLabel('Boolean (optional)', { exact: true }).check();
    await dialog.getByLabel('Integer (optional)', { exact: true }).fill('7');
    if (shots) await page.screenshot({ path: path.join(shots, 'elicitation.png') });
    await dialog.getByLabel('Integer (optional)', { exact: true }).press('Enter');
    await dialog.waitFor({ state: 'detached' });
    // The other window's copy is withdrawn (serverRequest/resolved).
    if (second) await second.getByTestId('elicitation-dialog').waitFor({ state: 'detached', timeout: 30_000 });

    const card = page.locator('[data-testid="mcp-tool-call"][data-status="completed"]');
    await card.waitFor({ timeout: 30_000 });
    await page.getByText('Thanks for the details.').waitFor();
    await card.locator('.tool-call-head').click();
    await expect(card.textContent()).resolves.toContain('- Name: Ada Lovelace');
    await expect(card.textContent()).resolves.toContain('- Favorite Integer: 7');
    await expect(card.textContent()).resolves.toContain('- Agreed to terms: true');
    expect(app.errors).toEqual([]);
  });

  it('asks to open a web page with its host shown plainly; the page opens only on the person’s click, and a decline reaches the server', async () => {
    const { page } = app;
    await connectEverything(page);
    // The page the server names is served here, so opening it needs no network.
    await page.context().route('https://auth.example.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Signed in</title>Signed in' }));
    const opened: string[] = [];
    page.context().on('page', (popup) => opened.push(popup.url()));
    const url = 'https://auth.example.com/authorize?client=wheelhouse';
    for (const answer of ['open', 'decline'] as const) {
      mock.enqueue(
        [{ type: 'toolCalls', calls: [{ id: `url-${answer}`, name: 'mcp__everything__trigger-url-elicitation', arguments: JSON.stringify({ url, message: 'Sign in to Example to continue.' }) }] }, { type: 'finish' }],
        [{ type: 'text', text: answer === 'open' ? 'Signed in, thanks.' : 'Understood, not signing in.' }, { type: 'finish' }],
      );
      await sendMessage(page, answer === 'open' ? 'sign me in' : 'try signing in again');
      const approval = page.getByTestId('mcp-approval-accept');
      const dialog = page.getByTestId('elicitation-dialog');
      // The tool itself may need the person's approval first (it reaches outside), then the server asks.
      await approval.or(dialog).first().waitFor({ timeout: 30_000 });
      if (await approval.isVisible()) await approval.click();
      await dialog.waitFor({ timeout: 30_000 });
      await expect(dialog.getByTestId('elicitation-url-host').textContent()).resolves.toBe('auth.example.com');
      await expect(dialog.textContent()).resolves.toContain('Sign in to Example to continue.');
      await expect(dialog.getByTestId('elicitation-open').textContent()).resolves.toBe('Open auth.example.com');
      expect(opened).toEqual(answer === 'open' ? [] : [url]);
      if (answer === 'open') {
        const violations = blocking(await runAxe(page));
        expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
        await shootBothSchemes(page, 'wire-final', 'url-elicitation', dialog);
        const popup = page.context().waitForEvent('page');
        await dialog.getByTestId('elicitation-open').click();
        await (await popup).waitForLoadState();
        expect(opened).toEqual([url]);
      } else {
        await dialog.getByTestId('elicitation-decline').click();
      }
      await dialog.waitFor({ state: 'detached' });
      await page.getByText(answer === 'open' ? 'Signed in, thanks.' : 'Understood, not signing in.').waitFor({ timeout: 30_000 });
      const card = page.locator('[data-testid="mcp-tool-call"][data-status="completed"]').last();
      await card.locator('.tool-call-head').click();
      await expect(card.textContent()).resolves.toContain(answer === 'open' ? 'User completed the URL elicitation flow' : 'User declined to open the URL');
    }
    expect(app.errors).toEqual([]);
  });
});
