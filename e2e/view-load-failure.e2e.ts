import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { e2eTarget, launchWheelhouse, type WheelhouseApp } from './harness.js';
import { skipSetup, waitForConnected } from './page-actions.js';

/**
 * The Jobs dashboard is a chunk fetched on first use. In the browser host the
 * server may be away just then (restarting with a new token, say): the rest of
 * the window keeps working, the dashboard says it could not be loaded, and
 * Try again fetches it once the server answers.
 */
describe('a view whose chunk cannot be fetched', () => {
  let app: WheelhouseApp;

  beforeEach(async (ctx) => {
    if (e2eTarget() === 'electron') ctx.skip('the desktop app reads its chunks from disk');
    app = await launchWheelhouse();
    await waitForConnected(app.page);
    await skipSetup(app.page);
  });

  afterEach(async () => {
    await app?.close();
  });

  it('says so in place of the view, keeps the window working, and loads it on Try again', async () => {
    const { page } = app;
    // Any fetch of the chunk while the server is away, including a retry under a URL of its own.
    const chunk = /\/assets\/jobs-view-[^/?]+\.(js|css)(\?.*)?$/;
    let refused = 0;
    await page.route(chunk, (route) => {
      refused += 1;
      return route.abort('connectionrefused');
    });

    await page.getByTestId('open-jobs').click();
    const failure = page.getByTestId('view-load-failed');
    await failure.waitFor();
    expect(refused).toBeGreaterThan(0);
    expect(await failure.innerText()).toContain('Jobs could not be loaded');
    // Only the dashboard failed: the sidebar is still there and still answers.
    await page.getByTestId('new-thread').waitFor();
    expect(await page.getByTestId('jobs-view').count()).toBe(0);

    await page.unroute(chunk);
    await failure.getByRole('button', { name: 'Try again' }).click();
    await page.getByTestId('jobs-view').waitFor();
    expect(await failure.count()).toBe(0);
    // Its stylesheet came too, with its rules (the failed <link> was not left standing in for it).
    const stylesheets = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]'), (link) => {
        let rules = 0;
        try {
          rules = link.sheet?.cssRules.length ?? 0;
        } catch {
          rules = 0; // an empty stand-in for a failed fetch: its rules cannot be read
        }
        return { href: link.href, styled: rules > 0 };
      }),
    );
    expect(stylesheets.filter((sheet) => /jobs-view-/.test(sheet.href))).toEqual([
      { href: expect.stringMatching(/jobs-view-.+\.css(\?attempt=\d+)?$/), styled: true },
    ]);
  });
});
