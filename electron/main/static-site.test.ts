import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { serveAppRequest } from './app-protocol.js';
import { serveStatic } from '../server/static-files.js';
import { resolveStaticPath } from '../files/static-site.js';

const temp = new TempDirs();
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  temp.cleanup();
});

/** A built renderer in its own folder, with a secret file beside that folder. */
function siteWithSecretNextToIt(): { root: string; secret: string } {
  const parent = temp.make('wheelhouse-site-');
  const root = path.join(parent, 'renderer');
  fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html>');
  fs.writeFileSync(path.join(root, 'assets', 'app.js'), 'console.log(1)');
  fs.writeFileSync(path.join(parent, 'secret.txt'), 'TOP-SECRET');
  return { root, secret: 'TOP-SECRET' };
}

/** GETs a raw request target from `wheelhouse serve`'s static handler on a real socket (no client-side normalising). */
async function httpServer(root: string): Promise<(target: string) => Promise<{ status: number; body: string }>> {
  const server = http.createServer((req, res) => void serveStatic(root, req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return (target) =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: target, method: 'GET' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
}

const TRAVERSALS = [
  '/../secret.txt',
  '/%2e%2e/secret.txt',
  '/%2E%2E%2Fsecret.txt',
  '/..%2Fsecret.txt',
  '/..%2frenderer%2f..%2f..%2fsecret.txt',
  '/assets/..%2F..%2Fsecret.txt',
  '/assets/..%5C..%5Csecret.txt',
  '/..%5Csecret.txt',
  '/%252e%252e/secret.txt',
  '/assets/%2e%2e/%2e%2e/secret.txt',
  '/.%2e/secret.txt',
  '/..;/secret.txt',
];

describe('the static site (serve and app:// alike)', () => {
  it.each(TRAVERSALS)('never serves a file outside the site root over HTTP or app://: %s', async (target) => {
    const { root, secret } = siteWithSecretNextToIt();
    const get = await httpServer(root);
    const overHttp = await get(target);
    expect(overHttp.body).not.toContain(secret);
    const overApp = await serveAppRequest({ method: 'GET', url: `app://wheelhouse${target}` }, root);
    expect(String(overApp.body ?? '')).not.toContain(secret);
    expect(overApp.body instanceof Uint8Array ? Buffer.from(overApp.body).toString() : '').not.toContain(secret);
  });

  it('answers both carriers alike: files, routes, missing assets', async () => {
    const { root } = siteWithSecretNextToIt();
    const get = await httpServer(root);
    for (const [target, status, body] of [
      ['/assets/app.js', 200, 'console.log(1)'],
      ['/threads/abc', 200, '<!doctype html>'],
      ['/assets/gone.js', 404, 'not found'],
    ] as const) {
      expect(await get(target)).toEqual({ status, body });
      const app = await serveAppRequest({ method: 'GET', url: `app://wheelhouse${target}` }, root);
      expect(app.status).toBe(status);
      expect(typeof app.body === 'string' ? app.body : Buffer.from(app.body ?? new Uint8Array()).toString()).toBe(body);
    }
  });

  it('resolves paths without touching the disk and refuses every way out', () => {
    const root = path.resolve('/site/root');
    expect(resolveStaticPath(root, '/assets/a%20b.js')).toEqual({ file: path.join(root, 'assets', 'a b.js') });
    expect(resolveStaticPath(root, '/%2e%2e/x')).toMatchObject({ status: 403 });
    expect(resolveStaticPath(root, '/a%5Cb')).toMatchObject({ status: 403 });
    expect(resolveStaticPath(root, '/a%00b')).toMatchObject({ status: 400 });
    expect(resolveStaticPath(root, '/%E0%A4%A')).toMatchObject({ status: 400 });
  });
});
