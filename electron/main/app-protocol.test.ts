import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { serveAppRequest, type AppResponse } from './app-protocol.js';
import { desktopContentSecurityPolicy } from './security-policy.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

function builtRenderer(): string {
  const root = temp.make('wheelhouse-renderer-');
  fs.mkdirSync(path.join(root, 'assets'));
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><script type="module" src="./assets/app.js"></script>');
  fs.writeFileSync(path.join(root, 'assets', 'app.js'), 'console.log("hi")');
  fs.writeFileSync(path.join(root, 'assets', 'app.css'), 'body{}');
  return root;
}

const get = (url: string, root: string) => serveAppRequest({ method: 'GET', url }, root);
const text = (response: AppResponse) =>
  typeof response.body === 'string' ? response.body : Buffer.from(response.body ?? new Uint8Array()).toString('utf8');

describe('app:// protocol', () => {
  it('serves the built files with their types and the strict policy', async () => {
    const root = builtRenderer();
    const page = await get('app://wheelhouse/index.html', root);
    expect(page.status).toBe(200);
    expect(page.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(page.headers['Content-Security-Policy']).toBe(desktopContentSecurityPolicy());
    expect(page.headers['X-Content-Type-Options']).toBe('nosniff');
    expect(text(page)).toContain('./assets/app.js');

    const script = await get('app://wheelhouse/assets/app.js', root);
    expect(script.status).toBe(200);
    expect(script.headers['Content-Type']).toBe('text/javascript; charset=utf-8');
    expect(text(script)).toBe('console.log("hi")');
    expect((await get('app://wheelhouse/assets/app.css', root)).headers['Content-Type']).toBe('text/css; charset=utf-8');
  });

  it('answers the root and client-side routes with index.html, missing assets with 404', async () => {
    const root = builtRenderer();
    expect(text(await get('app://wheelhouse/', root))).toContain('<!doctype html>');
    expect(text(await get('app://wheelhouse/threads/abc', root))).toContain('<!doctype html>');
    const missing = await get('app://wheelhouse/assets/gone.js', root);
    expect(missing.status).toBe(404);
    expect(missing.headers['Content-Type']).toBe('text/plain; charset=utf-8');
  });

  it('refuses malformed paths, other hosts and methods other than GET and HEAD', async () => {
    const root = builtRenderer();
    expect((await get('app://wheelhouse/%E0%A4%A', root)).status).toBe(400);
    expect((await get('app://wheelhouse/a%00b', root)).status).toBe(400);
    expect((await get('app://elsewhere/index.html', root)).status).toBe(404);
    const post = await serveAppRequest({ method: 'POST', url: 'app://wheelhouse/index.html' }, root);
    expect(post.status).toBe(405);
    expect(post.headers['Allow']).toBe('GET, HEAD');
  });

  it('answers HEAD without a body', async () => {
    const head = await serveAppRequest({ method: 'HEAD', url: 'app://wheelhouse/assets/app.js' }, builtRenderer());
    expect(head.status).toBe(200);
    expect(head.headers['Content-Type']).toBe('text/javascript; charset=utf-8');
    expect(head.body).toBeNull();
  });

  it('says how to build the UI when it is missing', async () => {
    const response = await get('app://wheelhouse/index.html', temp.make());
    expect(response.status).toBe(503);
    expect(text(response)).toMatch(/npm run build/);
  });
});
