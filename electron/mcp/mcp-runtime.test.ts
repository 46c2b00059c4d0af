import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnTracked } from '../../test-support/child-process.js';
import { everythingServerScript, filesystemServerScript, isAlive, stdioServerToml } from '../../test-support/mcp-servers.js';
import type { Runtime } from '../host/runtime.js';
import { mcpRuntimeApp } from '../../test-support/mcp-runtime-app.js';
import { textInput as text, useMockAgentKit } from '../../test-support/mock-agent-kit.js';
import { waitUntil } from '../../test-support/waiting.js';

/**
 * MCP servers through the runtime, against the real reference servers from
 * npm (server-everything, server-filesystem) and a mock model: what a
 * client sees in notifications, status lists and the conversation.
 */
const kit = useMockAgentKit({ killChildren: true });

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const app = (configToml: string) => mcpRuntimeApp(kit, configToml);

const pidsOf = (runtime: Runtime) =>
  runtime.services.mcp.servers().flatMap((slot) => (slot.connection?.pid ? [slot.connection.pid] : []));

describe('MCP servers in the runtime', () => {
  it('starts every server in parallel; a bad command fails clearly while the others come up; initialize does not wait', async () => {
    const files = kit.tempDir('wh-mcp-files-');
    const a = app(
      stdioServerToml('everything', everythingServerScript) +
        stdioServerToml('files', filesystemServerScript, [files]) +
        '[mcp_servers.broken]\ncommand = "/nonexistent/wheelhouse-no-such-server"\n',
    );
    const init = await a.call('initialize', { clientInfo: { name: 'test', version: '1' } });
    expect(init.serverVersion).toBeTruthy();
    expect(a.seen.some((n) => n.method === 'mcpServer/startupStatus/updated' && n.params.status === 'ready')).toBe(false);

    const summary = await a.startupDone();
    expect(summary.params).toEqual({
      ready: ['everything', 'files'],
      failed: [{ name: 'broken', error: expect.stringContaining('command not found: "/nonexistent/wheelhouse-no-such-server"') }],
      cancelled: [],
    });
    for (const name of ['everything', 'files', 'broken']) await a.status(name, 'starting');
    const failed = await a.status('broken', 'failed');
    expect(failed.method === 'mcpServer/startupStatus/updated' && failed.params.error).toContain('command not found');

    const list = await a.call('mcpServerStatus/list', {});
    const byName = (name: string) => list.data.find((s) => s.name === name)!;
    expect(byName('everything').runtimeStatus).toBe('connected');
    expect(Object.keys(byName('everything').tools)).toContain('echo');
    expect(byName('everything').serverInfo?.name).toBeTruthy();
    expect(Object.keys(byName('files').tools)).toContain('read_text_file');
    expect(byName('broken')).toMatchObject({ runtimeStatus: 'failed', toolsError: expect.stringContaining('command not found'), tools: {} });
  });

  it('answers mcpServerStatus/list once a server still starting has started, with its info and capabilities, and lists a failed start with its error', async () => {
    // The slow server waits at a FIFO the test opens: it cannot be up before the list is asked for.
    const files = kit.tempDir('wh-mcp-gate-');
    const gate = path.join(files, 'gate');
    execFileSync('mkfifo', [gate]);
    const script = `read go < '${gate}'; exec '${process.execPath}' '${everythingServerScript}'`;
    const a = app(`[mcp_servers.slow]\ncommand = "/bin/sh"\nargs = ["-c", ${JSON.stringify(script)}]\n` + '[mcp_servers.broken]\ncommand = "/nonexistent/wheelhouse-no-such-server"\n');
    await a.status('slow', 'starting');
    const listed = a.call('mcpServerStatus/list', {});
    expect(a.runtime.services.mcp.servers().find((slot) => slot.config.name === 'slow')?.state).toBe('starting');
    await fs.promises.writeFile(gate, 'go\n');
    const list = await listed;
    const slow = list.data.find((server) => server.name === 'slow')!;
    expect(slow).toMatchObject({ runtimeStatus: 'connected', serverInfo: { name: expect.any(String), version: expect.any(String) }, serverCapabilities: { tools: expect.any(Object) } });
    // Wheelhouse declares URL-mode elicitation, so server-everything offers its URL tool.
    expect(Object.keys(slow.tools)).toEqual(expect.arrayContaining(['echo', 'trigger-url-elicitation']));
    expect(list.data.find((server) => server.name === 'broken')).toMatchObject({
      runtimeStatus: 'failed',
      serverInfo: null,
      toolsError: expect.stringContaining('command not found'),
    });
  });

  it('offers allowed tools to the model under stable names, byte-identical across requests, and runs a call as an mcpToolCall item', async () => {
    const files = kit.tempDir('wh-mcp-files-');
    fs.writeFileSync(path.join(files, 'notes.txt'), 'remember the milk');
    const a = app(
      stdioServerToml('everything', everythingServerScript, [], 'disabled_tools = ["get-sum"]') +
        stdioServerToml('files', filesystemServerScript, [files], 'enabled_tools = ["read_text_file"]'),
    );
    await a.startupDone();
    const { thread } = await a.call('thread/start', {});
    kit.mock.enqueue(
      [
        {
          type: 'toolCalls',
          calls: [
            { id: 'c1', name: 'mcp__everything__echo', arguments: '{"message":"hello mcp"}' },
            { id: 'c2', name: 'mcp__files__read_text_file', arguments: JSON.stringify({ path: path.join(files, 'notes.txt') }) },
            { id: 'c3', name: 'mcp__everything__get-tiny-image', arguments: '{}' },
          ],
        },
        { type: 'finish' },
      ],
      [{ type: 'text', text: 'Done.' }, { type: 'finish' }],
    );
    const before = kit.mock.requests.length;
    const mark = a.seen.length;
    await a.call('turn/start', { threadId: thread.id, input: text('use the tools') });
    const turn = await a.turnDone(mark);
    expect(turn.status).toBe('completed');

    const [first, second] = kit.mock.requests.slice(before).map((r) => r.body as { tools: { function: { name: string } }[]; messages: unknown[] });
    const names = first!.tools.map((t) => t.function.name);
    expect(names).toContain('mcp__everything__echo');
    expect(names).toContain('mcp__files__read_text_file');
    expect(names).not.toContain('mcp__everything__get-sum');
    expect(names).not.toContain('mcp__files__write_file');
    expect(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n))).toBe(true);
    expect(JSON.stringify(second!.tools)).toBe(JSON.stringify(first!.tools));

    const { thread: read } = await a.call('thread/read', { threadId: thread.id, includeTurns: true });
    const items = read.turns[0]!.items.flatMap((i) => (i.type === 'mcpToolCall' ? [i] : []));
    expect(items).toHaveLength(3);
    expect(items[0]).toMatchObject({ server: 'everything', tool: 'echo', status: 'completed', arguments: { message: 'hello mcp' }, error: null });
    const content = (index: number) => (items[index]!.result?.content ?? []) as { type: string; text?: string; mimeType?: string }[];
    expect(content(0)).toEqual([{ type: 'text', text: 'Echo: hello mcp' }]);
    expect(content(1)[0]?.text).toContain('remember the milk');
    expect(content(2).some((b) => b.type === 'image' && b.mimeType === 'image/png')).toBe(true);
    const history = JSON.stringify(second!.messages);
    expect(history).toContain('Echo: hello mcp');
    expect(history).toContain('remember the milk');
    expect(a.seen.some((n) => n.method === 'item/started' && n.params.item.type === 'mcpToolCall')).toBe(true);
  });

  it('fails a call cleanly when its server is killed mid-call, then restarts the server', async () => {
    const a = app(stdioServerToml('everything', everythingServerScript));
    await a.startupDone();
    const { thread } = await a.call('thread/start', {});
    kit.mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'c1', name: 'mcp__everything__trigger-long-running-operation', arguments: '{"duration":60,"steps":60}' }] }, { type: 'finish' }],
      [{ type: 'text', text: 'It broke.' }, { type: 'finish' }],
    );
    const mark = a.seen.length;
    await a.call('turn/start', { threadId: thread.id, input: text('run it') });
    await a.waitFor((n) => n.method === 'item/mcpToolCall/progress', mark);
    const [pid] = pidsOf(a.runtime);
    process.kill(pid!, 'SIGKILL');
    const turn = await a.turnDone(mark);
    expect(turn.status).toBe('completed');
    const done = await a.waitFor((n) => n.method === 'item/completed' && n.params.item.type === 'mcpToolCall', mark);
    const item = done.method === 'item/completed' && done.params.item.type === 'mcpToolCall' ? done.params.item : null;
    expect(item).toMatchObject({ status: 'failed', error: { message: expect.stringMatching(/stopped/) } });
    const failed = await a.status('everything', 'failed', mark);
    expect(failed.method === 'mcpServer/startupStatus/updated' && failed.params.error).toMatch(/stopped unexpectedly.*restarting/);
    await a.status('everything', 'ready', a.seen.indexOf(failed));
    const [newPid] = pidsOf(a.runtime);
    expect(newPid).not.toBe(pid);
  });

  it('lets a person interrupt a turn stuck in a slow MCP call; the server stays up', async () => {
    const a = app(stdioServerToml('everything', everythingServerScript));
    await a.startupDone();
    const { thread } = await a.call('thread/start', {});
    kit.mock.enqueue([
      { type: 'toolCalls', calls: [{ id: 'c1', name: 'mcp__everything__trigger-long-running-operation', arguments: '{"duration":120,"steps":120}' }] },
      { type: 'finish' },
    ]);
    const mark = a.seen.length;
    const { turn } = await a.call('turn/start', { threadId: thread.id, input: text('run it') });
    await a.waitFor((n) => n.method === 'item/mcpToolCall/progress', mark);
    await a.call('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    expect((await a.turnDone(mark)).status).toBe('interrupted');
    const done = await a.waitFor((n) => n.method === 'item/completed' && n.params.item.type === 'mcpToolCall', mark);
    expect(done.method === 'item/completed' && done.params.item.type === 'mcpToolCall' && done.params.item.status).toBe('failed');
    const echo = await a.call('mcpServer/tool/call', { threadId: thread.id, server: 'everything', tool: 'echo', arguments: { message: 'still here' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: still here' }]);
  });

  it('honours tool_timeout_sec', async () => {
    const a = app(stdioServerToml('everything', everythingServerScript, [], 'tool_timeout_sec = 1'));
    await a.startupDone();
    const { thread } = await a.call('thread/start', {});
    await expect(
      a.call('mcpServer/tool/call', { threadId: thread.id, server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 30, steps: 2 } }),
    ).rejects.toThrow(/did not answer within 1 s/);
    const echo = await a.call('mcpServer/tool/call', { threadId: thread.id, server: 'everything', tool: 'echo', arguments: { message: 'x' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: x' }]);
  });

  it('reads resources and refuses turned-off tools and unknown servers with clear errors', async () => {
    const a = app(stdioServerToml('everything', everythingServerScript, [], 'disabled_tools = ["get-sum"]'));
    await a.startupDone();
    const { thread } = await a.call('thread/start', {});
    await expect(
      a.call('mcpServer/tool/call', { threadId: thread.id, server: 'everything', tool: 'get-sum', arguments: { a: 1, b: 2 } }),
    ).rejects.toThrow(/turned off/);
    await expect(a.call('mcpServer/tool/call', { threadId: thread.id, server: 'nope', tool: 'echo' })).rejects.toThrow(/no MCP server named "nope"/);
    const [status] = (await a.call('mcpServerStatus/list', { serverName: 'everything' })).data;
    expect(status?.tools['get-sum']).toBeUndefined();
    const resource = status?.resources[0];
    expect(resource).toBeDefined();
    const read = await a.call('mcpServer/resource/read', { server: 'everything', uri: resource!.uri });
    expect(read.contents[0]?.uri).toBe(resource!.uri);
  });

  it('adds, disables and removes a server through config writes; a bad table changes nothing', async () => {
    const a = app('');
    await expect(a.call('config/value/write', { keyPath: 'mcp_servers.x', value: { args: ['a'] } })).rejects.toThrow(/mcp_servers\.x\.command/);
    expect(fs.readFileSync(path.join(a.home, 'config.toml'), 'utf8')).toBe('');
    const mark = a.seen.length;
    await a.call('config/value/write', { keyPath: 'mcp_servers.everything', value: { command: process.execPath, args: [everythingServerScript] } });
    await a.status('everything', 'ready', mark);
    const [pid] = pidsOf(a.runtime);
    await a.call('config/value/write', { keyPath: 'mcp_servers.everything.enabled', value: false });
    expect((await a.call('mcpServerStatus/list', {})).data[0]?.runtimeStatus).toBe('disabled');
    await waitUntil(() => !isAlive(pid!), { what: `server process ${pid} to end` });
    await a.call('config/value/write', { keyPath: 'mcp_servers.everything', value: null });
    expect((await a.call('mcpServerStatus/list', {})).data).toEqual([]);
  });

  it('restarts one server on request and picks up a hand edit of config.toml on reload', async () => {
    const a = app(stdioServerToml('everything', everythingServerScript));
    await a.startupDone();
    const [before] = pidsOf(a.runtime);
    await expect(a.call('mcpServer/restart', { name: 'nope' })).rejects.toThrow(/no MCP server named "nope"/);
    let mark = a.seen.length;
    await a.call('mcpServer/restart', { name: 'everything' });
    await a.status('everything', 'ready', mark);
    const [after] = pidsOf(a.runtime);
    expect(after).not.toBe(before);
    await waitUntil(() => !isAlive(before!), { what: `the old server process ${before} to end` });

    fs.appendFileSync(path.join(a.home, 'config.toml'), stdioServerToml('second', everythingServerScript));
    mark = a.seen.length;
    await a.call('config/mcpServer/reload', {});
    const summary = await a.waitFor((n) => n.method === 'mcpServer/startupStatus/completed', mark);
    // Only the new server starts; the running one is left alone.
    expect(summary.params).toEqual({ ready: ['second'], failed: [], cancelled: [] });
    expect(pidsOf(a.runtime)).toContain(after);
  });

  it('leaves no server process behind on shutdown, nor on an immediate close', async () => {
    const config = stdioServerToml('one', everythingServerScript) + stdioServerToml('two', everythingServerScript);
    const a = app(config);
    await a.startupDone();
    const pids = pidsOf(a.runtime);
    expect(pids).toHaveLength(2);
    await a.runtime.shutdown();
    for (const pid of pids) expect(isAlive(pid)).toBe(false);

    const b = app(config);
    await b.startupDone();
    const more = pidsOf(b.runtime);
    b.runtime.close();
    for (const pid of more) await waitUntil(() => !isAlive(pid), { what: `process ${pid} to end` });
  });

  it.skipIf(process.platform !== 'linux')('stops a launcher’s grandchild too (a server started through a shell, as npx does)', async () => {
    // `; :` keeps the shell alive as the parent, so the server is its child, not the shell itself.
    const script = `${JSON.stringify(process.execPath)} ${JSON.stringify(everythingServerScript)}; :`;
    const a = app(`[mcp_servers.wrapped]\ncommand = "/bin/sh"\nargs = ["-c", ${JSON.stringify(script)}]\n`);
    expect((await a.startupDone()).params).toMatchObject({ ready: ['wrapped'] });
    const [shell] = pidsOf(a.runtime);
    const grandchildren = fs.readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(/\s+/).map(Number);
    expect(grandchildren).toHaveLength(1);
    await a.runtime.shutdown();
    for (const pid of [shell!, ...grandchildren]) expect(isAlive(pid)).toBe(false);
  });

  it('connects to a streamable HTTP server by url, with a bearer token from the environment', async () => {
    const port = await freePort();
    const server = spawnTracked(process.execPath, [everythingServerScript, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await waitUntil(() => server.stderr().includes('listening on port'), { what: 'the HTTP server to listen' });
    process.env.WHEELHOUSE_TEST_MCP_TOKEN = 'test-token';
    kit.onCleanup(() => {
      delete process.env.WHEELHOUSE_TEST_MCP_TOKEN;
    });
    const a = app(
      `[mcp_servers.remote]\nurl = "http://127.0.0.1:${port}/mcp"\nbearer_token_env_var = "WHEELHOUSE_TEST_MCP_TOKEN"\n` +
        `[mcp_servers.unset]\nurl = "http://127.0.0.1:${port}/mcp"\nbearer_token_env_var = "WHEELHOUSE_TEST_MCP_UNSET"\n`,
    );
    const summary = await a.startupDone();
    expect(summary.params).toEqual({
      ready: ['remote'],
      failed: [{ name: 'unset', error: expect.stringContaining('WHEELHOUSE_TEST_MCP_UNSET (bearer_token_env_var) is not set') }],
      cancelled: [],
    });
    const [status] = (await a.call('mcpServerStatus/list', { serverName: 'remote' })).data;
    expect(status).toMatchObject({ runtimeStatus: 'connected', authStatus: 'bearerToken', httpOrigin: `http://127.0.0.1:${port}` });
    const { thread } = await a.call('thread/start', {});
    const echo = await a.call('mcpServer/tool/call', { threadId: thread.id, server: 'remote', tool: 'echo', arguments: { message: 'over http' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: over http' }]);
  });
});
