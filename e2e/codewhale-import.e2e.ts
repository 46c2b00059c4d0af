import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { launchWheelhouse, type WheelhouseApp } from './harness.js';
import { skipSetup, waitForConnected } from './page-actions.js';

const PLAIN_KEY = 'sk-plain-text-secret-123';

const CODEWHALE_CONFIG = `provider = "acme"

[providers.acme]
base_url = "https://llm.acme.test/v1"
api_key_env = "ACME_API_KEY"
model = "acme-coder"

[providers.local]
base_url = "http://127.0.0.1:8080/v1"
api_key = "${PLAIN_KEY}"
`;

/**
 * A CodeWhale user brings their providers over from Settings (or first run):
 * the summary names what came over and what did not, the providers become
 * choices, and a wrong path or broken file says why.
 */
describe('importing from CodeWhale', () => {
  let app: WheelhouseApp;
  let folder: string;

  beforeEach(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-codewhale-'));
    await writeFile(path.join(folder, 'config.toml'), CODEWHALE_CONFIG);
    app = await launchWheelhouse();
    await waitForConnected(app.page);
  });

  afterEach(async () => {
    await app?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('imports providers from a chosen file in Settings and offers them as choices', async () => {
    const { page } = app;
    await skipSetup(page);
    await page.getByTestId('open-settings').click();
    await page.getByTestId('codewhale-open').click();
    await page.getByTestId('codewhale-path').fill(path.join(folder, 'config.toml'));
    await page.getByTestId('codewhale-run').click();

    const result = page.getByTestId('codewhale-result');
    await result.waitFor();
    expect(await result.getByTestId('codewhale-imported').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-provider-id')))).toEqual([
      'acme',
      'local',
    ]);
    expect(await result.textContent()).toContain('Imported 2 providers');
    const acme = result.locator('[data-testid="codewhale-imported"][data-provider-id="acme"]');
    expect(await acme.textContent()).toMatch(/acme-coder.*ACME_API_KEY/);
    expect(await page.getByTestId('codewhale-default').textContent()).toMatch(/acme is now the default provider, with acme-coder/);
    // The plain-text key is named as left behind, and never shown.
    expect(await page.getByTestId('codewhale-skipped').textContent()).toMatch(/local\.api_key.*not copied/);
    expect(await page.getByTestId('setup-screen').textContent()).not.toContain(PLAIN_KEY);

    // Both are choices now; the new default is selected and filled in.
    const saved = page.getByTestId('saved-provider');
    await saved.nth(1).waitFor();
    expect(await saved.evaluateAll((chips) => chips.map((c) => c.getAttribute('data-provider-id')))).toEqual(['acme', 'local']);
    expect(await page.locator('[data-testid="saved-provider"][data-provider-id="acme"]').getAttribute('aria-checked')).toBe('true');
    expect(await page.getByTestId('provider-base-url').inputValue()).toBe('https://llm.acme.test/v1');
    expect(await page.getByTestId('provider-model').inputValue()).toBe('acme-coder');

    await page.locator('[data-testid="saved-provider"][data-provider-id="local"]').click();
    expect(await page.getByTestId('provider-base-url').inputValue()).toBe('http://127.0.0.1:8080/v1');
    expect(app.errors).toEqual([]);
  });

  it('says clearly when the file is missing or is not valid TOML (first run link)', async () => {
    const { page } = app;
    await page.getByTestId('setup-screen').waitFor();
    await page.getByTestId('codewhale-open').click();
    const missing = path.join(folder, 'nowhere', 'config.toml');
    await page.getByTestId('codewhale-path').fill(missing);
    await page.getByTestId('codewhale-run').click();
    const error = page.getByTestId('codewhale-error');
    await error.waitFor();
    expect(await error.textContent()).toContain(`No CodeWhale config at ${missing}`);
    expect(await page.getByTestId('codewhale-result').count()).toBe(0);
    expect(await page.getByTestId('saved-provider').count()).toBe(0);

    const broken = path.join(folder, 'broken.toml');
    await writeFile(broken, '[providers.acme]\nbase_url = "https://x.test/v1"\nmodel = = "m"\n');
    await page.getByTestId('codewhale-path').fill(broken);
    await page.getByTestId('codewhale-path').press('Enter');
    await error.filter({ hasText: 'line 3' }).waitFor();
    expect(await error.textContent()).toContain('is not valid TOML');
    expect(app.errors).toEqual([]);
  });
});
