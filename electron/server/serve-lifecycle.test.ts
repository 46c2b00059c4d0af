import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAllChildren, type ChildExit } from '../../test-support/child-process.js';
import { repoRoot } from '../../test-support/paths.js';
import { startServe } from '../../test-support/serve-process.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { waitUntil } from '../../test-support/waiting.js';
import { connectWs } from '../../test-support/ws-peer.js';
import { SERVE_TOKEN_FILE } from './serve-token.js';
import { SERVER_STOPPED_REASON } from './web-server.js';

const temp = new TempDirs();
const holdLongTimers = path.join(repoRoot, 'test-support', 'hold-long-timers.mjs');
afterAll(async () => {
  await killAllChildren();
  temp.cleanup();
});

/** Opens a TCP connection that never sends a byte, as browsers do ahead of need. */
function idleConnection(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
    socket.on('error', () => undefined); // a reset at shutdown is expected
  });
}

/** Status of the plain GET a page uses to ask whether its token is accepted. */
async function tokenStatus(port: number, token: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/rpc?token=${encodeURIComponent(token)}`);
  return response.status;
}

describe('wheelhouse serve stopping', () => {
  it('exits on Ctrl+C without waiting out a grace period, with idle connections and an open page, saying so and telling the page why', async () => {
    // Its grace timers (500 ms and more) never fire here: it exits only if it needs none of them and leaves none armed.
    const server = await startServe({ home: temp.make(), nodeArgs: ['--import', holdLongTimers], env: { WHEELHOUSE_HOLD_TIMERS_FROM_MS: '500' } });
    const idle = await Promise.all([idleConnection(server.port), idleConnection(server.port)]);
    const page = await connectWs(server.wsUrl);
    await page.peer.initialize('lifecycle-test');

    server.process.child.kill('SIGINT');
    let exit: ChildExit | undefined;
    void server.process.exited.then((ended) => (exit = ended));
    await waitUntil(() => exit, { what: 'serve to exit after Ctrl+C with every grace timer held' });

    expect(exit!.code).toBe(0);
    expect(server.stdout()).toContain('stopping…');
    expect(await page.closed).toEqual({ code: 1001, reason: SERVER_STOPPED_REASON });
    // The server ended the idle connections rather than waiting on them.
    await Promise.all(idle.map((socket) => (socket.closed ? undefined : once(socket, 'close'))));
  });
});

describe('the serve token', () => {
  it('is kept private in the home and reused across restarts; --rotate-token replaces it', async () => {
    const home = temp.make();
    const first = await startServe({ home });
    const file = path.join(home, SERVE_TOKEN_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(first.token);
    expect(await tokenStatus(first.port, first.token)).toBe(204);
    expect(await tokenStatus(first.port, 'not-the-token')).toBe(401);
    await first.stop();

    const second = await startServe({ home });
    expect(second.token).toBe(first.token);
    await second.stop();

    const rotated = await startServe({ home, args: ['--rotate-token'] });
    expect(rotated.token).not.toBe(first.token);
    expect(await tokenStatus(rotated.port, first.token)).toBe(401);
    expect(await tokenStatus(rotated.port, rotated.token)).toBe(204);
    await rotated.stop();
  });
});
