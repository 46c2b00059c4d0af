import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Job, type NotificationMessage, type ThreadItem } from '../../shared/protocol/index.js';
import { execCall, textReply, type CommandItem } from '../../test-support/agent-commands.js';
import { startAppServer, type AppServerProcess } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import type { Received } from '../../test-support/message-inbox.js';
import { startMockModelServer, type MockModelServer } from '../../test-support/mock-model/index.js';
import { TempDirs } from '../../test-support/temp-dir.js';

/**
 * Provider keys in Wheelhouse's environment stay out of what it starts: the
 * agent's commands, jobs, hooks and MCP servers get them only where the
 * person listed them (an MCP server's `env_vars`, a job's `env`).
 */
const DEEPSEEK_KEY = 'sk-deepseekEnvKey0123456789abcdef';
const MOCK_KEY = 'mock-provider-key-in-env-0123';
const PRINT_KEYS = `printf 'deepseek=[%s] mock=[%s]\\n' "$DEEPSEEK_API_KEY" "$MOCK_PROVIDER_KEY"`;

let mock: MockModelServer;
const temp = new TempDirs();
beforeAll(async () => {
  mock = await startMockModelServer();
});
afterAll(async () => {
  await mock.close();
});
afterEach(async () => {
  await killAllChildren();
  temp.cleanup();
});

function makeHome(extraToml = ''): { home: string; project: string; hookOutput: string } {
  const home = temp.make('wheelhouse-secret-env-');
  const project = temp.make('wheelhouse-secret-project-');
  const hookOutput = path.join(temp.make('wheelhouse-secret-hook-'), 'hook-env.txt');
  const hookScript = path.join(home, 'print-keys.sh');
  fs.writeFileSync(hookScript, `#!/bin/sh\n${PRINT_KEYS} > ${JSON.stringify(hookOutput)}\n`, { mode: 0o755 });
  fs.writeFileSync(
    path.join(home, 'config.toml'),
    [
      'model = "deepseek-chat"',
      'model_provider = "mock"',
      '[model_providers.mock]',
      'name = "Mock"',
      `base_url = "${mock.url}"`,
      'wire_api = "chat"',
      'env_key = "MOCK_PROVIDER_KEY"',
      'request_max_retries = 0',
      // A hook runs before every tool call; it writes down the keys it was given.
      '[[hooks.PreToolUse]]',
      '[[hooks.PreToolUse.hooks]]',
      'name = "print-keys"',
      `command = ["/bin/sh", ${JSON.stringify(hookScript)}]`,
      extraToml,
      '',
    ].join('\n'),
  );
  return { home, project, hookOutput };
}

function start(home: string): AppServerProcess & { traffic: () => string } {
  const server = startAppServer(home, { env: { DEEPSEEK_API_KEY: DEEPSEEK_KEY, MOCK_PROVIDER_KEY: MOCK_KEY } });
  let traffic = '';
  server.process.child.stdout?.on('data', (chunk: Buffer) => (traffic += chunk.toString('utf8')));
  return { ...server, traffic: () => traffic };
}

const jobEnded = (jobId: string) => (r: Received) =>
  r.kind === 'notification' && r.message.method === 'job/updated' && Job.parse((r.message.params as { job: unknown }).job).id === jobId && ['completed', 'failed'].includes((r.message.params as { job: Job }).job.status);

async function runJob(server: AppServerProcess, cwd: string, env?: Record<string, string>): Promise<string> {
  const { job } = await server.peer.call('job/create', { kind: 'command', command: PRINT_KEYS, cwd, ...(env ? { env } : {}) });
  await server.peer.inbox.take(jobEnded(job.id), `job ${job.id} ended`);
  return (await server.peer.call('job/log', { jobId: job.id })).data;
}

/** Every file under `dir`, decoded leniently (SQLite pages and logs included). */
function filesContaining(dir: string, needle: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((entry) => {
    const file = path.join(dir, entry);
    return fs.statSync(file).isFile() && fs.readFileSync(file).toString('latin1').includes(needle);
  });
}

describe('provider keys and what Wheelhouse starts', () => {
  it('a sandboxed agent command, its hook, a job and the person’s command/exec see no key; the key is in no event, file or model request', async () => {
    const { home, project, hookOutput } = makeHome();
    const server = start(home);
    await server.peer.initialize();
    mock.enqueue(execCall(`${PRINT_KEYS}; env | grep -c _KEY= || true`), textReply('Done.'));
    const before = mock.requests.length;
    const { thread } = await server.peer.call('thread/start', { cwd: project, approvalPolicy: 'on-request' });
    await server.peer.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'show the keys' }] });
    const completed = await server.peer.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'item/completed' && (r.message.params as { item: ThreadItem }).item.type === 'commandExecution',
      'the command item',
    );
    const item = ((completed.message as NotificationMessage).params as { item: CommandItem }).item;
    expect(item.status).toBe('completed');
    expect(item.aggregatedOutput).toContain('deepseek=[] mock=[]');
    expect(item.aggregatedOutput).toMatch(/^0\s*$/m);
    await server.peer.inbox.notification('turn/completed');
    // The hook ran with the same environment rules.
    expect(fs.readFileSync(hookOutput, 'utf8')).toBe('deepseek=[] mock=[]\n');
    // The model read the command's output: without the key.
    const toolMessage = JSON.stringify(mock.requests[before + 1]?.body);
    expect(toolMessage).toContain('deepseek=[] mock=[]');

    expect(await runJob(server, project)).toContain('deepseek=[] mock=[]');
    // The person's own commands too: their output is logged under the home, where the agent can read it.
    const own = await server.peer.call('command/exec', { command: ['sh', '-c', PRINT_KEYS], cwd: project });
    expect(own.stdout).toBe('deepseek=[] mock=[]\n');
    const chosen = await server.peer.call('command/exec', { command: ['sh', '-c', PRINT_KEYS], cwd: project, env: { MOCK_PROVIDER_KEY: 'typed-by-the-person' } });
    expect(chosen.stdout).toBe('deepseek=[] mock=[typed-by-the-person]\n');

    const replay = await server.peer.call('events/replay', { afterSeq: 0 });
    expect(replay.events.length).toBeGreaterThan(0);
    server.endInput();
    await server.exited;

    // The provider still got its key, in the header where it belongs.
    expect(mock.requests.at(-1)?.headers.authorization).toBe(`Bearer ${MOCK_KEY}`);
    for (const key of [DEEPSEEK_KEY, MOCK_KEY]) {
      expect(server.traffic()).not.toContain(key);
      expect(server.process.stderr()).not.toContain(key);
      expect(JSON.stringify(mock.requests.map((request) => request.body))).not.toContain(key);
      expect({ key, files: filesContaining(home, key) }).toEqual({ key, files: [] });
      expect({ key, files: filesContaining(project, key) }).toEqual({ key, files: [] });
    }
  }, 90_000);

  it('a job whose env names the key gets the value it names; an MCP server listing it in env_vars inherits it', async () => {
    const { everythingServerScript, stdioServerToml } = await import('../../test-support/mcp-servers.js');
    const { home, project } = makeHome(
      stdioServerToml('plain', everythingServerScript) + stdioServerToml('trusted', everythingServerScript, [], 'env_vars = ["DEEPSEEK_API_KEY"]'),
    );
    const server = start(home);
    await server.peer.initialize();
    expect(await runJob(server, project, { DEEPSEEK_API_KEY: 'chosen-for-this-job' })).toContain('deepseek=[chosen-for-this-job] mock=[]');

    const { thread } = await server.peer.call('thread/start', { cwd: project });
    await server.peer.inbox.notification('mcpServer/startupStatus/completed', 60_000);
    const envOf = async (name: string) => {
      const result = await server.peer.call('mcpServer/tool/call', { server: name, tool: 'get-env', threadId: thread.id, arguments: {} });
      return JSON.parse((result.content[0] as { text: string }).text) as Record<string, string>;
    };
    const trusted = await envOf('trusted');
    expect(trusted['DEEPSEEK_API_KEY']).toBe(DEEPSEEK_KEY);
    expect(trusted['MOCK_PROVIDER_KEY']).toBeUndefined();
    const plain = await envOf('plain');
    expect(plain['DEEPSEEK_API_KEY']).toBeUndefined();
    expect(plain['PATH']).toBeTruthy();
    server.endInput();
    await server.exited;
  }, 90_000);
});
