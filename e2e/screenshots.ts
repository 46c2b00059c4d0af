import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';

/** The folder WHEELHOUSE_E2E_SCREENSHOTS names (made if need be), or null when it is unset. */
async function screenshotFolder(): Promise<string | null> {
  const folder = process.env['WHEELHOUSE_E2E_SCREENSHOTS'];
  if (!folder) return null;
  await mkdir(folder, { recursive: true });
  return folder;
}

/** WHEELHOUSE_E2E_SCREENSHOTS=<folder> keeps a picture of each step (the page, or `part` of it), for looking at the UI. */
export async function snap(page: Page, name: string, part?: Locator): Promise<void> {
  const folder = await screenshotFolder();
  if (folder) await (part ?? page).screenshot({ path: path.join(folder, `${name}.png`) });
}

/** Like `snap`, in both palettes: `<name>-light.png` and `<name>-dark.png`. */
export async function snapBothSchemes(page: Page, name: string): Promise<void> {
  const folder = await screenshotFolder();
  if (folder) await inBothSchemes(page, page, (scheme) => path.join(folder, `${name}-${scheme}.png`));
}

/** Always keeps the page (or `part` of it) in both palettes under <tmp>/shots/<set>/, for reviewing a screen's look. */
export async function shootBothSchemes(page: Page, set: string, name: string, part?: Locator): Promise<void> {
  const folder = path.join(os.tmpdir(), 'shots', set);
  await mkdir(folder, { recursive: true });
  await inBothSchemes(page, part ?? page, (scheme) => path.join(folder, `${name}-${scheme}.png`));
}

async function inBothSchemes(page: Page, target: Page | Locator, file: (scheme: 'dark' | 'light') => string): Promise<void> {
  for (const colorScheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme });
    await target.screenshot({ path: file(colorScheme) });
  }
  await page.emulateMedia({ colorScheme: null });
}
