import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcClient, type AnyNotification, type ServerRequestParamsOf } from '../../shared/protocol/index.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { everythingServerScript, stdioServerToml } from '../../test-support/mcp-servers.js';
import { createMemoryTransportPair } from '../../test-support/memory-transport.js';
import { createTestRuntime } from '../../test-support/test-runtime.js';
import { waitUntil } from '../../test-support/waiting.js';
import { activeWireConformance, wireTap } from '../../test-support/wire-conformance.js';
import { RpcHost } from '../server/rpc-host.js';

/**
 * MCP elicitation end to end: the real server-everything's
 * `trigger-elicitation-request` tool asks through the official SDK; the
 * question reaches every connected client (typed RpcClients over the real
 * RpcHost), and the first answer goes back to the server, whose tool result
 * shows what it received.
 */
type ElicitParams = ServerRequestParamsOf<'mcpServer/elicitation/request'>;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await killAllChildren();
});

async function app(options: { elicitationTimeoutMs?: number; serverToml?: string } = {}) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'wh-elicit-'));
  fs.writeFileSync(path.join(home, 'config.toml'), stdioServerToml('everything', everythingServerScript, [], options.serverToml ?? ''));
  const runtime = createTestRuntime({
    home,
    validateResults: true,
    defaults: { cwd: home },
    ...(options.elicitationTimeoutMs ? { elicitationTimeoutMs: options.elicitationTimeoutMs } : {}),
  });
  const host = new RpcHost(runtime);
  cleanups.push(async () => {
    host.close();
    await runtime.shutdown();
    fs.rmSync(home, { recursive: true, force: true });
  });
  const seen: AnyNotification[] = [];
  runtime.events.subscribe((n) => seen.push(n));
  await new Promise<void>((resolve) => {
    const off = runtime.events.subscribe((n) => {
      if (n.method === 'mcpServer/startupStatus/completed') {
        off();
        resolve();
      }
    });
  });
  expect(runtime.services.mcp.servers()[0]?.state).toBe('ready');
  /** A client over the real RpcHost; `asked` collects the elicitations it received. */
  /** `prepare` runs before initialize, as a real client registers its handlers first. */
  const client = async (name: string, prepare?: (rpc: RpcClient) => void) => {
    const [clientEnd, serverEnd] = createMemoryTransportPair();
    // Every message both ways is checked against Codex's schema (see wire-conformance-setup.ts).
    const tap = wireTap();
    const connection = host.connect('in-process', {
      send: (text) => {
        tap?.received(text);
        serverEnd.send(text);
      },
    });
    serverEnd.onMessage((text) => {
      tap?.sent(text);
      void connection.receive(text);
    });
    const rpc = new RpcClient(clientEnd);
    prepare?.(rpc);
    await rpc.request('initialize', { clientInfo: { name, version: '0' } });
    const resolved: Array<string | number> = [];
    rpc.on('serverRequest/resolved', (params) => resolved.push(params.requestId));
    return { rpc, connection, resolved };
  };
  const { thread } = await runtime.dispatcher.call('thread/start', {}, { session: { connectionId: 'x', carrier: 'in-process', clientInfo: null, optOut: new Set() } });
  return { runtime, host, client, thread, seen };
}

/** Resolves with the first elicitation the client receives, and lets the test answer it later. */
function nextElicitation(rpc: RpcClient) {
  let answer!: (response: { action: 'accept' | 'decline' | 'cancel'; content?: unknown }) => void;
  const asked = new Promise<ElicitParams>((resolveAsked) => {
    const off = rpc.handle('mcpServer/elicitation/request', (params) => {
      off();
      resolveAsked(params);
      return new Promise((resolve) => (answer = resolve));
    });
  });
  return { asked, answer: (response: Parameters<typeof answer>[0]) => answer(response) };
}

const resultText = (result: { content: unknown[] }) => (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');

describe('MCP elicitation against server-everything', () => {
  it('shows the form to the client and sends the accepted content back to the server', async () => {
    const { client, thread } = await app();
    const a = await client('a');
    const prompt = nextElicitation(a.rpc);
    const call = a.rpc.request('mcpServer/tool/call', { server: 'everything', tool: 'trigger-elicitation-request', threadId: thread.id });
    const params = await prompt.asked;
    expect(params).toMatchObject({ serverName: 'everything', threadId: thread.id, turnId: null, mode: 'form' });
    if (params.mode !== 'form') throw new Error('expected a form');
    expect(params.requestedSchema.required).toEqual(['name']);
    expect(params.requestedSchema.properties.integer).toMatchObject({ type: 'integer', default: 42, minimum: 1, maximum: 100 });
    prompt.answer({ action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } });
    const text = resultText(await call);
    expect(text).toContain('User provided the requested information');
    expect(text).toContain('- Name: Ada Lovelace');
    expect(text).toContain('- Favorite Integer: 7');
    expect(text).toContain('- Agreed to terms: true');
  });

  it('passes decline and cancel to the server', async () => {
    const { client, thread } = await app();
    const a = await client('a');
    for (const [action, shown] of [['decline', 'User declined'], ['cancel', 'User cancelled']] as const) {
      const prompt = nextElicitation(a.rpc);
      const call = a.rpc.request('mcpServer/tool/call', { server: 'everything', tool: 'trigger-elicitation-request', threadId: thread.id });
      await prompt.asked;
      prompt.answer({ action });
      expect(resultText(await call)).toContain(shown);
    }
  });

  it('asks for a URL elicitation as Codex does (mode url, the link, its id) and passes accept and decline to the server', async () => {
    const { client, thread } = await app();
    const a = await client('a');
    const url = 'https://auth.example.com/authorize?client=wheelhouse';
    for (const [action, shown] of [['accept', 'User completed the URL elicitation flow'], ['decline', 'User declined to open the URL']] as const) {
      const prompt = nextElicitation(a.rpc);
      const call = a.rpc.request('mcpServer/tool/call', {
        server: 'everything',
        tool: 'trigger-url-elicitation',
        threadId: thread.id,
        arguments: { url, message: 'Sign in to continue', elicitationId: `sign-in-${action}` },
      });
      expect(await prompt.asked).toEqual({
        serverName: 'everything',
        threadId: thread.id,
        turnId: null,
        mode: 'url',
        message: 'Sign in to continue',
        url,
        elicitationId: `sign-in-${action}`,
      });
      prompt.answer({ action });
      const text = resultText(await call);
      expect(text).toContain(shown);
      // An accepted URL elicitation carries no content: the person went to the page.
      expect(text).toContain(`"action": "${action}"`);
      expect(text).not.toContain('"content"');
    }
  });

  it('declines a URL elicitation for anything but a web page without asking anyone', async () => {
    const { client, thread } = await app();
    const a = await client('a');
    let asked = 0;
    a.rpc.handle('mcpServer/elicitation/request', () => {
      asked++;
      return { action: 'accept' };
    });
    const result = await a.rpc.request('mcpServer/tool/call', {
      server: 'everything',
      tool: 'trigger-url-elicitation',
      threadId: thread.id,
      arguments: { url: 'file:///etc/passwd' },
    });
    expect(resultText(result)).toContain('User declined to open the URL');
    expect(asked).toBe(0);
  });

  it('refuses content that does not fit the form and keeps waiting for a valid answer', async () => {
    const { client, thread } = await app();
    const a = await client('a');
    const b = await client('b');
    const fromA = nextElicitation(a.rpc);
    const fromB = nextElicitation(b.rpc);
    const call = a.rpc.request('mcpServer/tool/call', { server: 'everything', tool: 'trigger-elicitation-request', threadId: thread.id });
    await Promise.all([fromA.asked, fromB.asked]);
    // name is required; integer must be 1..100.
    fromA.answer({ action: 'accept', content: { integer: 500 } });
    fromB.answer({ action: 'accept', content: { name: 'Grace' } });
    const text = resultText(await call);
    expect(text).toContain('- Name: Grace');
    expect(text).not.toContain('500');
  });

  it('sends the question to every client: the first answer wins and the others are told it is resolved', async () => {
    const { client, thread } = await app();
    const a = await client('a');
    const b = await client('b');
    const fromA = nextElicitation(a.rpc);
    const fromB = nextElicitation(b.rpc);
    const call = a.rpc.request('mcpServer/tool/call', { server: 'everything', tool: 'trigger-elicitation-request', threadId: thread.id });
    const [askedA, askedB] = await Promise.all([fromA.asked, fromB.asked]);
    expect(askedB).toEqual(askedA);
    fromB.answer({ action: 'accept', content: { name: 'from b' } });
    const text = resultText(await call);
    expect(text).toContain('- Name: from b');
    // Both clients hear that the request is settled; a's late answer changes nothing.
    await waitUntil(() => a.resolved.length === 1, { what: 'serverRequest/resolved' });
    expect(b.resolved).toEqual(a.resolved);
    fromA.answer({ action: 'decline' });
    const again = nextElicitation(b.rpc);
    const second = a.rpc.request('mcpServer/tool/call', { server: 'everything', tool: 'trigger-elicitation-request', threadId: thread.id });
    const secondParams = await again.asked;
    expect(secondParams.serverName).toBe('everything');
    again.answer({ action: 'decline' });
    expect(resultText(await second)).toContain('User declined');
    // The request, the answers and serverRequest/resolved were all checked against Codex's schema.
    const covered = activeWireConformance()?.covered;
    expect(covered?.has('mcpServer/elicitation/request')).toBe(true);
    expect(covered?.has('serverRequest/resolved')).toBe(true);
  });

  it('gives a waiting question to a client that connects later (a reloaded window), which can answer it', async () => {
    const { client, thread } = await app();
    const a = await client('a');
    const fromA = nextElicitation(a.rpc);
    const call = a.rpc.request('mcpServer/tool/call', { server: 'everything', tool: 'trigger-elicitation-request', threadId: thread.id });
    const asked = await fromA.asked;
    let fromLate!: ReturnType<typeof nextElicitation>;
    await client('late', (rpc) => (fromLate = nextElicitation(rpc)));
    expect(await fromLate.asked).toEqual(asked);
    fromLate.answer({ action: 'accept', content: { name: 'latecomer' } });
    expect(resultText(await call)).toContain('- Name: latecomer');
    await waitUntil(() => a.resolved.length === 1, { what: 'serverRequest/resolved' });
  });

  it('cancels towards the server when nobody answers in time, and withdraws the prompt', async () => {
    const { client, thread } = await app({ elicitationTimeoutMs: 1500 });
    const a = await client('a');
    const prompt = nextElicitation(a.rpc);
    const call = a.rpc.request('mcpServer/tool/call', { server: 'everything', tool: 'trigger-elicitation-request', threadId: thread.id });
    await prompt.asked;
    const text = resultText(await call);
    expect(text).toContain('User cancelled');
    expect(text).toContain('nobody answered within 2 s');
    // The withdrawal is announced once it is in the event log, which may be after the server has its answer.
    await waitUntil(() => a.resolved.length === 1, { what: 'serverRequest/resolved' });
    expect(a.resolved).toHaveLength(1);
  });

  it('does not count the person’s time against tool_timeout_sec', async () => {
    const { client, thread } = await app({ serverToml: 'tool_timeout_sec = 1' });
    const a = await client('a');
    const prompt = nextElicitation(a.rpc);
    const call = a.rpc.request('mcpServer/tool/call', { server: 'everything', tool: 'trigger-elicitation-request', threadId: thread.id });
    await prompt.asked;
    // While the form waits, a second call to the same server, started after it, runs into the same
    // tool_timeout_sec: the person has now taken longer than the call's whole timeout, and the form must
    // still be answerable.
    await expect(
      a.rpc.request('mcpServer/tool/call', { server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 30, steps: 2 }, threadId: thread.id }),
    ).rejects.toThrow(/did not answer within 1 s/);
    prompt.answer({ action: 'accept', content: { name: 'slow typist' } });
    expect(resultText(await call)).toContain('- Name: slow typist');
  });

  it('cancels at once, with the reason, when no client is connected', async () => {
    const { runtime, thread } = await app();
    const result = await runtime.dispatcher.call(
      'mcpServer/tool/call',
      { server: 'everything', tool: 'trigger-elicitation-request', threadId: thread.id },
      { session: { connectionId: 'x', carrier: 'in-process', clientInfo: null, optOut: new Set() } },
    );
    const text = resultText(result);
    expect(text).toContain('User cancelled');
    // At once: the reason names the missing client, not the 10-minute wait for an answer.
    expect(text).toContain('no Wheelhouse client is connected');
  });
});
