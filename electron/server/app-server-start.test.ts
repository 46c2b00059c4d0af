import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../shared/protocol/index.js';
import { startAppServer } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { waitUntil } from '../../test-support/waiting.js';

/**
 * `app-server` answers `initialize` before it opens the home's SQLite store
 * (electron/host/start-runtime.ts). These tests hold it to what a client must
 * still be able to rely on: one server per home, and a store that cannot be
 * opened is reported, never silently served.
 */
const temp = new TempDirs();
afterEach(async () => {
  await killAllChildren();
  temp.cleanup();
});

describe('`wheelhouse app-server` start-up', () => {
  it('answers initialize, then a store request, then every request after it, from one process', async () => {
    const home = temp.make('wheelhouse-start-');
    const server = startAppServer(home);
    // Sent together, as a client that does not wait for the initialize response would.
    const [init, started] = await Promise.all([
      server.peer.initialize(),
      server.peer.call('thread/start', { cwd: home }),
    ]);
    expect(init.wheelhouseHome).toBe(home);
    const listed = await server.peer.call('thread/list', {});
    expect(listed.data.map((thread) => thread.id)).toEqual([started.thread.id]);
    server.endInput();
    expect((await server.exited).code).toBe(0);
  });

  it('refuses a second server on a home in use, before answering anything, with the reason and exit code 1', async () => {
    const home = temp.make('wheelhouse-start-');
    const first = startAppServer(home);
    await first.peer.initialize();
    const second = startAppServer(home);
    second.peer.request('initialize', { clientInfo: { name: 'second', version: '0.0.0' } }).catch(() => undefined);
    const exit = await second.exited;
    expect(exit.code).toBe(1);
    expect(second.process.stderr()).toMatch(/is using .*Close it, or start this one with another home/);
    // The first one still serves the home.
    expect((await first.peer.call('thread/list', {})).data).toEqual([]);
    first.endInput();
    expect((await first.exited).code).toBe(0);
  });

  it('answers requests that need a store it cannot open with -32603 saying why, then exits 1 with the reason on stderr', async () => {
    const home = temp.make('wheelhouse-start-');
    fs.writeFileSync(path.join(home, 'state.sqlite'), 'this is not a SQLite database, only text that looks nothing like one\n'.repeat(20));
    const server = startAppServer(home);
    const [init, listed] = await Promise.all([
      server.peer.initialize(),
      server.peer.request('thread/list', {}),
    ]);
    expect(init.wheelhouseHome).toBe(home);
    expect(listed).toEqual({
      id: expect.anything(),
      error: { code: ErrorCode.Internal, message: `the Wheelhouse home ${home} could not be opened: file is not a database`, data: { reason: 'runtime.unavailable' } },
    });
    const exit = await server.exited;
    expect(exit.code).toBe(1);
    expect(server.process.stderr()).toContain('wheelhouse: file is not a database');
    // The lock went with it: the home is free for the next server (which reports the same bad store).
    expect(fs.existsSync(path.join(home, 'state.sqlite'))).toBe(true);
    const again = startAppServer(home);
    await again.peer.initialize();
    again.endInput();
    expect((await again.exited).code).toBe(1);
    expect(again.process.stderr()).not.toContain('is using');
  });

  it('stops on SIGTERM before any input arrives, exits 0 and frees the home', async () => {
    const home = temp.make('wheelhouse-start-');
    const server = startAppServer(home);
    // Wait until it holds the home (the lock file), without sending it anything.
    await waitUntil(() => fs.existsSync(path.join(home, 'runtime.lock')), { what: 'the home lock file' });
    const exit = await server.process.stop('SIGTERM');
    expect(exit, `stderr: ${server.process.stderr()}`).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(path.join(home, 'runtime.lock'))).toBe(false);
  });
});
