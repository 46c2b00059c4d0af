import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodexSchema, codexSchemaPath } from '../../test-support/codex-schema.js';
import type { ProtocolPeer } from '../../test-support/protocol-peer.js';
import { startServe } from '../../test-support/serve-process.js';
import { repoRoot } from '../../test-support/paths.js';
import { useStdioAgentHomes } from '../../test-support/stdio-agent-home.js';
import { activeWireConformance, WireConformanceRun } from '../../test-support/wire-conformance.js';
import { connectWs } from '../../test-support/ws-peer.js';

/**
 * A Codex client's session against Wheelhouse, over both carriers: requests
 * shaped as Codex's generated clients send them (null for every optional
 * field), and every message both ways checked against Codex 0.169.0's schema
 * by the peers' conformance tap (test-support/wire-conformance.ts).
 */
const stdio = useStdioAgentHomes();

function homeWithMockProvider(): string {
  return stdio.makeHome('wheelhouse-codex-').home;
}

const text = (t: string) => [{ type: 'text', text: t, text_elements: [] }];

async function ok(peer: ProtocolPeer, method: string, params: unknown): Promise<Record<string, unknown>> {
  const response = await peer.request(method, params);
  if ('error' in response) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
  return response.result as Record<string, unknown>;
}

/** What a Codex IDE client does in a session; returns the thread ids it made. */
async function codexSession(peer: ProtocolPeer, home: string): Promise<void> {
  const init = await ok(peer, 'initialize', {
    clientInfo: { name: 'codex_vscode', title: null, version: '0.169.0' },
    capabilities: { experimentalApi: true, optOutNotificationMethods: null },
  });
  expect(init.codexHome).toBe(home);
  // A client that gates on the version reads the first x.y.z: the Codex protocol version, never Wheelhouse's.
  expect(init.userAgent).toMatch(/^codex_vscode\/0\.169\.0 \(Wheelhouse \S+; .+\) codex_vscode\/0\.169\.0$/);
  expect(String(init.userAgent).match(/\d+\.\d+\.\d+/)?.[0]).toBe('0.169.0');
  peer.sendRaw(JSON.stringify({ method: 'initialized' }));

  const started = await ok(peer, 'thread/start', {
    model: null,
    modelProvider: null,
    cwd: home,
    approvalPolicy: null,
    approvalsReviewer: null,
    sandbox: null,
    config: null,
    baseInstructions: null,
    developerInstructions: null,
    personality: null,
    ephemeral: null,
    serviceName: null,
    experimentalRawEvents: false,
  });
  const threadId = (started.thread as { id: string }).id;
  await peer.inbox.notification('thread/started');

  // A turn with a (read-only) tool call, reasoning and streamed text.
  stdio.mock.enqueue(
    [{ type: 'toolCalls', calls: [{ id: 'call_1', name: 'list_directory', arguments: '{}' }] }, { type: 'finish', reason: 'tool_calls' }],
    [
      { type: 'reasoning', text: 'Looking at the folder.' },
      { type: 'text', text: 'Hello ' },
      { type: 'text', text: 'from the mock.' },
      { type: 'finish', usage: { inputTokens: 12, outputTokens: 4 } },
    ],
  );
  await ok(peer, 'turn/start', { threadId, input: text('hi'), model: null, cwd: null, effort: null, summary: null, approvalPolicy: null, sandboxPolicy: null, outputSchema: null });
  await peer.inbox.notification('item/agentMessage/delta');
  const completed = await peer.inbox.notification('turn/completed');
  expect((completed.params as { turn: { status: string } }).turn.status).toBe('completed');
  const read = await ok(peer, 'thread/read', { threadId, includeTurns: true });
  const turnItems = (read.thread as { turns: { items: { type: string }[] }[] }).turns[0]!.items.map((i) => i.type);
  expect(turnItems).toEqual(['userMessage', 'dynamicToolCall', 'reasoning', 'agentMessage']);

  stdio.mock.enqueue([{ type: 'text', text: 'Working' }, { type: 'stall' }]);
  const second = await ok(peer, 'turn/start', { threadId, input: text('long job'), model: null });
  await peer.inbox.notification('item/agentMessage/delta');
  await ok(peer, 'turn/interrupt', { threadId, turnId: (second.turn as { id: string }).id });
  const interrupted = await peer.inbox.notification('turn/completed');
  expect((interrupted.params as { turn: { status: string } }).turn.status).toBe('interrupted');

  await ok(peer, 'thread/list', { archived: null, cursor: null, limit: null, sortKey: null, modelProviders: null, cwd: null, searchTerm: null, includeArchived: null });
  await ok(peer, 'thread/read', { threadId, includeTurns: true });
  await ok(peer, 'thread/resume', { threadId, model: null, modelProvider: null, cwd: null, approvalPolicy: null, sandbox: null, config: null, history: null, path: null });
  const fork = await ok(peer, 'thread/fork', { threadId, lastTurnId: null, model: null, modelProvider: null, cwd: null, path: null });
  expect((fork.thread as { forkedFromId: string }).forkedFromId).toBe(threadId);
  await ok(peer, 'thread/name/set', { threadId, name: 'Codex-shaped' });
  await ok(peer, 'thread/loaded/list', { cursor: null, limit: null });
  await ok(peer, 'thread/archive', { threadId });
  await ok(peer, 'thread/unarchive', { threadId });
  await ok(peer, 'model/list', { cursor: null, limit: null, includeHidden: null, modelProvider: null });
  await ok(peer, 'config/read', { cwd: null, includeLayers: false });
  // Both writes answer Codex's ConfigWriteResponse (not a type named after their params).
  await ok(peer, 'config/value/write', { keyPath: 'model_reasoning_effort', value: 'high', mergeStrategy: 'replace', filePath: null, expectedVersion: null });
  await ok(peer, 'config/batchWrite', { edits: [{ keyPath: 'model_reasoning_effort', value: 'medium', mergeStrategy: 'replace' }], filePath: null, expectedVersion: null });
  await ok(peer, 'thread/goal/set', { threadId, objective: 'Keep going', status: null, tokenBudget: null, origin: null });
  await ok(peer, 'thread/goal/get', { threadId });
  await ok(peer, 'thread/goal/clear', { threadId });
}

/** The Codex methods a session must have exercised (so a check that never ran cannot pass). */
const SESSION_METHODS = [
  'initialize',
  'initialized',
  'thread/start',
  'thread/started',
  'turn/start',
  'turn/started',
  'item/started',
  'item/agentMessage/delta',
  'item/reasoning/textDelta',
  'item/completed',
  'thread/tokenUsage/updated',
  'turn/completed',
  'turn/interrupt',
  'thread/status/changed',
  'thread/list',
  'thread/read',
  'thread/resume',
  'thread/fork',
  'thread/archive',
  'thread/archived',
  'thread/unarchive',
  'model/list',
  'config/read',
  'config/value/write',
  'config/batchWrite',
  'thread/goal/set',
  'thread/goal/updated',
];

function conformance(): WireConformanceRun {
  const run = activeWireConformance();
  if (!run) throw new Error('wire conformance is not enabled (vitest setupFiles)');
  return run;
}

describe("Codex 0.169.0's schema", () => {
  it('is found beside the repository (or at CODEX_SCHEMA_PATH), and indexes every method', () => {
    const schema = CodexSchema.load(codexSchemaPath());
    expect(schema.methods.clientRequest.size).toBeGreaterThan(150);
    expect(schema.methods.serverNotification.get('turn/completed')?.params).toBe('#/definitions/v2/TurnCompletedNotification');
    expect(schema.methods.clientRequest.get('initialize')?.result).toBe('#/definitions/InitializeResponse');
  });

  it('fails loudly, naming the path, when the schema is missing', () => {
    expect(() => CodexSchema.load('/nonexistent/codex.schema.json')).toThrow(/schema is missing: \/nonexistent\/codex\.schema\.json/);
  });

  it('names the method and JSON path of a message that breaks it', () => {
    const run = new WireConformanceRun(undefined);
    const tap = run.tap();
    tap.received(JSON.stringify({ method: 'thread/archived', params: { threadId: 7 } }));
    tap.sent(JSON.stringify({ id: 1, method: 'thread/read', params: { threadId: 't' } }));
    tap.received(JSON.stringify({ id: 1, result: { thread: { id: 't' } } }));
    tap.received(JSON.stringify({ method: 'wheelhouse/only', params: {} }));
    expect(run.violations.map((v) => [v.method, v.part, v.path])).toEqual([
      ['thread/archived', 'params', '/threadId'],
      ['thread/read', 'result', '/readState'],
    ]);
    expect([...run.skipped.keys()]).toEqual(['wheelhouse/only']);
  });

  it('flags a refused Codex-valid request, and a null Codex sends where Wheelhouse wants a value', () => {
    const run = new WireConformanceRun(undefined);
    const tap = run.tap();
    tap.sent(JSON.stringify({ id: 1, method: 'thread/list', params: { limit: null } }));
    tap.received(JSON.stringify({ id: 1, error: { code: -32602, message: 'limit', data: { issues: [{ path: ['limit'], message: 'bad' }] } } }));
    expect(run.violations.map((v) => [v.method, v.part])).toEqual([['thread/list', 'acceptance']]);
  });
});

describe('a Codex-shaped session produces only schema-valid messages', () => {
  it('over stdio', async () => {
    const home = homeWithMockProvider();
    const server = stdio.start(home);
    const before = conformance().validated;
    await codexSession(server.peer, home);
    server.endInput();
    expect((await server.exited).code).toBe(0);
    expect(conformance().takeViolations()).toEqual([]);
    expect(conformance().validated - before).toBeGreaterThan(40);
    expect(SESSION_METHODS.filter((m) => !conformance().covered.has(m))).toEqual([]);
  });

  it('over WebSocket', async () => {
    const home = homeWithMockProvider();
    const serve = await startServe({ home });
    const ws = await connectWs(serve.wsUrl);
    const before = conformance().validated;
    await codexSession(ws.peer, home);
    ws.socket.close();
    await serve.stop();
    expect(conformance().takeViolations()).toEqual([]);
    expect(conformance().validated - before).toBeGreaterThan(40);
  });
});

describe('docs/protocol.md', () => {
  it("lists each method under Codex's or Wheelhouse's own, as the protocol tables and Codex's schema say", async () => {
    const { clientMethods, serverNotifications, serverRequests } = await import('../../shared/protocol/index.js');
    const schema = CodexSchema.load(codexSchemaPath());
    const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'protocol.md'), 'utf8');
    const rowOf = (label: string) => {
      const row = doc.split('\n').find((line) => line.startsWith(`| ${label} |`));
      if (!row) throw new Error(`docs/protocol.md has no "${label}" row in its Codex compatibility table`);
      const [codex = '', ours = ''] = row.split('|').slice(2, 4);
      const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort();
      return { codex: names(codex), ours: names(ours) };
    };
    const split = (names: string[], table: ReadonlyMap<string, unknown>) => ({
      codex: names.filter((n) => table.has(n)).sort(),
      ours: names.filter((n) => !table.has(n)).sort(),
    });
    expect(rowOf('requests')).toEqual(split(Object.keys(clientMethods), schema.methods.clientRequest));
    expect(rowOf('notifications')).toEqual(split(Object.keys(serverNotifications), schema.methods.serverNotification));
    expect(rowOf('server requests')).toEqual(split(Object.keys(serverRequests), schema.methods.serverRequest));
  });
});
