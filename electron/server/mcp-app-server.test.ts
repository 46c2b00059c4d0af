import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAppServer } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { everythingServerScript, isAlive, stdioServerToml } from '../../test-support/mcp-servers.js';
import { TempDirs } from '../../test-support/temp-dir.js';

/** The built `wheelhouse app-server` (the bundle, not the sources) running an MCP server and stopping it at exit. */
const temp = new TempDirs();
afterEach(async () => {
  await killAllChildren();
  temp.cleanup();
});

function childPids(pid: number): number[] {
  const text = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text ? text.split(/\s+/).map(Number) : [];
}

describe('MCP in `wheelhouse app-server`', () => {
  it.skipIf(process.platform !== 'linux')('answers initialize at once, brings the server up, and leaves no process behind at exit', async () => {
    const home = temp.make('wheelhouse-mcp-cli-');
    fs.writeFileSync(path.join(home, 'config.toml'), stdioServerToml('everything', everythingServerScript));
    const server = startAppServer(home);
    await server.peer.initialize();
    await server.peer.inbox.notification('mcpServer/startupStatus/completed', 60_000);
    const { data } = await server.peer.call('mcpServerStatus/list', {});
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ name: 'everything', runtimeStatus: 'connected', toolsError: null });
    expect(Object.keys(data[0]!.tools)).toContain('echo');
    const pids = childPids(server.process.child.pid!);
    expect(pids).toHaveLength(1);
    server.endInput();
    expect((await server.exited).code).toBe(0);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });
});
