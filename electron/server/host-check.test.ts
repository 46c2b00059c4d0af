import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllChildren } from '../../test-support/child-process.js';
import { startServe, type ServeProcess } from '../../test-support/serve-process.js';
import { TempDirs } from '../../test-support/temp-dir.js';

/**
 * DNS rebinding: a page on another name that resolves to 127.0.0.1 reaches
 * the port but sends its own Host. Every route, static file and WebSocket
 * upgrade of `wheelhouse serve` refuses it, over real sockets with the
 * headers written by hand (fetch would not let a test forge Host).
 */
const temp = new TempDirs();
let server: ServeProcess;
beforeAll(async () => {
  server = await startServe({ home: temp.make() });
});
afterAll(async () => {
  await server.stop();
  await killAllChildren();
  temp.cleanup();
});

interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

/** Sends `request` as is on a fresh connection and reads until the server closes it. */
function raw(request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('utf8');
      // A 101 keeps the connection open: the status line is all a test needs.
      if (text.startsWith('HTTP/1.1 101')) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0), head: end < 0 ? text : text.slice(0, end), body: end < 0 ? '' : text.slice(end + 4) });
    });
  });
}

const get = (path: string, host: string | null, extra = '') =>
  raw(`GET ${path} HTTP/1.1\r\n${host === null ? '' : `Host: ${host}\r\n`}${extra}Connection: close\r\n\r\n`);

const upgrade = (host: string) =>
  raw(
    `GET /rpc?token=${server.token} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
  );

describe('Host checks on wheelhouse serve', () => {
  const routes = () => [
    { path: '/v1/runtime/info', extra: '' },
    { path: '/v1/threads', extra: `Authorization: Bearer ${server.token}\r\n` },
    { path: `/rpc?token=${server.token}`, extra: '' },
    { path: '/', extra: '' },
    { path: '/index.html', extra: '' },
  ];
  const foreign = () => [`evil.example:${server.port}`, `127.0.0.1.evil.example:${server.port}`, `127.0.0.1:${server.port + 1}`, 'localhost', `localhost:${server.port}@evil.example`];

  it('refuses a foreign Host on every route and static file with 403 and a message naming the address that works', async () => {
    for (const { path, extra } of routes()) {
      // Without any Host, Node's HTTP parser refuses the request itself (400).
      expect((await get(path, null, extra)).status).toBe(400);
      for (const host of foreign()) {
        const answer = await get(path, host, extra);
        expect({ path, host, status: answer.status }).toEqual({ path, host, status: 403 });
        expect(JSON.parse(answer.body)).toEqual({
          error: { code: 'host_not_allowed', message: expect.stringContaining(`http://127.0.0.1:${server.port}`) },
        });
      }
    }
  });

  it('answers the loopback names with its port, whatever their case', async () => {
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `LocalHost:${server.port}`, `[::1]:${server.port}`]) {
      expect({ host, status: (await get('/v1/runtime/info', host)).status }).toEqual({ host, status: 200 });
      expect({ host, status: (await get('/v1/threads', host, `Authorization: Bearer ${server.token}\r\n`)).status }).toEqual({ host, status: 200 });
    }
  });

  it('refuses a WebSocket upgrade with a foreign Host even with the right token; upgrades a loopback one', async () => {
    for (const host of foreign()) {
      const refused = await upgrade(host);
      expect({ host, status: refused.status }).toEqual({ host, status: 403 });
      expect(refused.body).toContain('is not this server');
    }
    expect((await upgrade(`localhost:${server.port}`)).status).toBe(101);
  });
});
