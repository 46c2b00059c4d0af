import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CommandExecutionApprovalDecision } from '../../../shared/protocol/index.js';
import { execCall, textReply } from '../../../test-support/agent-commands.js';
import { patchCall, patchOf } from '../../../test-support/agent-patches.js';
import { HttpApiClient, useServedHome } from '../../../test-support/http-api-client.js';
import type { MockModelServer } from '../../../test-support/mock-model/index.js';
import { type ServeProcess } from '../../../test-support/serve-process.js';
import type { SseSubscriber } from '../../../test-support/sse-client.js';
import { TempDirs } from '../../../test-support/temp-dir.js';
import { codexDecisionOf, httpDecisionOf } from './approval-routes.js';
import { connectWs } from '../../../test-support/ws-peer.js';
import { filesystemServerScript, stdioServerToml } from '../../../test-support/mcp-servers.js';

/** Command approvals answered over HTTP against a real `wheelhouse serve`, the mock model asking for exec_command. */
const temp = new TempDirs();
afterAll(() => temp.cleanup());
let mock: MockModelServer;
let server: ServeProcess;
let client: HttpApiClient;
let home: string;
useServedHome('wheelhouse-http-approvals-', (parts) => ({ mock, server, client, home } = parts));

/** A thread in a fresh project folder whose turn asks to run `command`; resolves once the approval waits. */
async function turnAskingToRun(command: string): Promise<{ threadId: string; project: string; events: SseSubscriber; requestId: string }> {
  const project = temp.make('wheelhouse-http-approvals-project-');
  const created = await client.call('POST', '/threads', { cwd: project });
  expect(created.status).toBe(201);
  const threadId = created.body.thread.id as string;
  const events = await client.subscribe(`/threads/${threadId}/events?since_seq=0`);
  mock.enqueue(execCall(command), textReply('Done.'));
  expect((await client.call('POST', `/threads/${threadId}/turns`, { input: 'run it' })).status).toBe(201);
  const requested = await events.waitForEvent('approval.requested');
  const payload = requested.json as { payload: { request_id: string; command: string; available_decisions: unknown[] } };
  expect(payload.payload.command).toBe(command);
  expect(payload.payload.available_decisions).toContain('accept_for_session');
  return { threadId, project, events, requestId: payload.payload.request_id };
}

describe('decisions in snake_case', () => {
  it('maps every variant to Codex and back', () => {
    const pairs: [Parameters<typeof codexDecisionOf>[0], CommandExecutionApprovalDecision][] = [
      ['accept', 'accept'],
      ['accept_for_session', 'acceptForSession'],
      ['decline', 'decline'],
      ['cancel', 'cancel'],
      [{ accept_with_execpolicy_amendment: { execpolicy_amendment: ['npm', 'test'] } }, { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['npm', 'test'] } }],
      [
        { apply_network_policy_amendment: { network_policy_amendment: { host: 'registry.npmjs.org', action: 'allow' } } },
        { applyNetworkPolicyAmendment: { network_policy_amendment: { host: 'registry.npmjs.org', action: 'allow' } } },
      ],
    ];
    for (const [http, codex] of pairs) {
      expect(codexDecisionOf(http)).toEqual(codex);
      expect(httpDecisionOf(codex)).toEqual(http);
    }
  });
});

describe('approvals over HTTP', () => {
  it('lists the waiting approval in snake_case, refuses bad answers, and the first good answer runs the command', async () => {
    const { threadId, project, events, requestId } = await turnAskingToRun('touch approved.txt');

    const listed = await client.call('GET', `/approvals?thread_id=${threadId}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({
      request_id: requestId,
      method: 'item/commandExecution/requestApproval',
      params: { thread_id: threadId, command: 'touch approved.txt' },
    });
    expect(listed.body.data[0].params.available_decisions).toEqual(expect.arrayContaining(['accept', 'accept_for_session', 'decline', 'cancel']));

    // Bad input changes nothing: the approval still waits and nothing ran.
    for (const bad of [{ decision: 'yes' }, { decision: 'acceptForSession' }, {}, { decision: 'accept', extra: 1 }]) {
      const refused = await client.call('POST', `/approvals/${requestId}`, bad);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_params');
    }
    // A local `touch` proposes no network rule, so that decision is not on offer.
    const offered = listed.body.data[0].params.available_decisions as unknown[];
    expect(offered.some((d) => typeof d === 'object' && d !== null && 'apply_network_policy_amendment' in d)).toBe(false);
    const notOffered = { apply_network_policy_amendment: { network_policy_amendment: { host: 'example.com', action: 'allow' } } };
    const refused = await client.call('POST', `/approvals/${requestId}`, { decision: notOffered });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/does not offer/);
    const unknown = await client.call('POST', '/approvals/approval-no-such-item', { decision: 'accept' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('approval_not_found');
    expect((await client.call('GET', '/approvals')).body.data.map((a: { request_id: string }) => a.request_id)).toContain(requestId);
    expect(fs.existsSync(path.join(project, 'approved.txt'))).toBe(false);

    const accepted = await client.call('POST', `/approvals/${requestId}`, { decision: 'accept' });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ request_id: requestId, status: 'answered' });
    const again = await client.call('POST', `/approvals/${requestId}`, { decision: 'decline' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('approval_finished');

    await events.waitFor((e) => e.event === 'serverRequest/resolved' && (e.json as { payload: { request_id: string } }).payload.request_id === requestId);
    await events.waitForEvent('turn/completed');
    expect(fs.existsSync(path.join(project, 'approved.txt'))).toBe(true);
    expect((await client.call('GET', `/approvals?thread_id=${threadId}`)).body.data).toEqual([]);
  });

  it('a patch approval is listed and announced with the four file change decisions; a command-only one is refused', async () => {
    const project = temp.make('wheelhouse-http-approvals-project-');
    const threadId = (await client.call('POST', '/threads', { cwd: project })).body.thread.id as string;
    const events = await client.subscribe(`/threads/${threadId}/events?since_seq=0`);
    mock.enqueue(patchCall(patchOf('*** Add File: patched.txt', '+via http')), textReply('Done.'));
    expect((await client.call('POST', `/threads/${threadId}/turns`, { input: 'patch it' })).status).toBe(201);
    const requested = (await events.waitForEvent('approval.requested')).json as { payload: { request_id: string; command: unknown; available_decisions: unknown[] } };
    expect(requested.payload).toMatchObject({ command: null, available_decisions: ['accept', 'accept_for_session', 'decline', 'cancel'] });
    const requestId = requested.payload.request_id;
    const listed = (await client.call('GET', `/approvals?thread_id=${threadId}`)).body.data[0];
    expect(listed).toMatchObject({ request_id: requestId, method: 'item/fileChange/requestApproval', params: { thread_id: threadId, grant_root: null } });
    const amendment = { accept_with_execpolicy_amendment: { execpolicy_amendment: ['touch'] } };
    const refused = await client.call('POST', `/approvals/${requestId}`, { decision: amendment });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/does not offer/);
    expect(fs.existsSync(path.join(project, 'patched.txt'))).toBe(false);
    expect((await client.call('POST', `/approvals/${requestId}`, { decision: 'accept' })).status).toBe(200);
    await events.waitForEvent('turn/completed');
    expect(fs.readFileSync(path.join(project, 'patched.txt'), 'utf8')).toBe('via http\n');
  });

  it('a decline over HTTP keeps the command from running', async () => {
    const { project, events, requestId } = await turnAskingToRun('touch declined.txt');
    expect((await client.call('POST', `/approvals/${requestId}`, { decision: 'decline' })).status).toBe(200);
    const completed = await events.waitFor(
      (e) => e.event === 'item/completed' && (e.json as { payload: { item: { type: string } } }).payload.item.type === 'commandExecution',
      'the command item to complete',
    );
    expect((completed.json as { payload: { item: { status: string } } }).payload.item.status).toBe('declined');
    await events.waitForEvent('turn/completed');
    expect(fs.existsSync(path.join(project, 'declined.txt'))).toBe(false);
  });

  it('first answer wins across carriers: a WebSocket client answers first, the HTTP answer gets 409', async () => {
    const ws = await connectWs(server.wsUrl);
    await ws.peer.initialize('ws-client');
    const { project, events, requestId } = await turnAskingToRun('touch by-websocket.txt');
    await ws.peer.call('approval/answer', { requestId, decision: 'accept' });
    const late = await client.call('POST', `/approvals/${requestId}`, { decision: 'decline' });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('approval_finished');
    await events.waitForEvent('turn/completed');
    expect(fs.existsSync(path.join(project, 'by-websocket.txt'))).toBe(true);
    ws.socket.close();
  });

  it('an agent’s MCP tool call that needs approval waits on the HTTP API too, and an HTTP accept runs it', async () => {
    const project = temp.make('wheelhouse-http-approvals-mcp-');
    const ws = await connectWs(server.wsUrl);
    await ws.peer.initialize('ws-client');
    // A hand edit of config.toml, picked up by Codex's reload request.
    fs.appendFileSync(path.join(home, 'config.toml'), `\n${stdioServerToml('files', filesystemServerScript, [project])}`);
    await ws.peer.call('config/mcpServer/reload', {});
    await ws.peer.inbox.notification('mcpServer/startupStatus/completed', 30_000);
    ws.socket.close();
    const created = await client.call('POST', '/threads', { cwd: project });
    const threadId = created.body.thread.id as string;
    const events = await client.subscribe(`/threads/${threadId}/events?since_seq=0`);
    const file = path.join(project, 'over-http.txt');
    mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'w1', name: 'mcp__files__write_file', arguments: JSON.stringify({ path: file, content: 'http' }) }] }, { type: 'finish' }],
      textReply('Written.'),
    );
    expect((await client.call('POST', `/threads/${threadId}/turns`, { input: 'write it' })).status).toBe(201);
    const requested = (await events.waitForEvent('approval.requested')).json as { payload: Record<string, unknown> };
    expect(requested.payload).toMatchObject({
      request_id: expect.stringMatching(/^mcp_tool_call_approval_/),
      command: null,
      reason: 'Allow the files MCP server to run tool "write_file"?',
      available_decisions: ['accept', 'accept_for_session', 'decline', 'cancel'],
    });
    const requestId = requested.payload.request_id as string;
    const listed = await client.call('GET', `/approvals?thread_id=${threadId}`);
    expect(listed.body.data[0]).toMatchObject({ request_id: requestId, method: 'mcpServer/elicitation/request', params: { server_name: 'files', item_id: requested.payload.item_id } });
    expect(fs.existsSync(file)).toBe(false);
    expect((await client.call('POST', `/approvals/${requestId}`, { decision: 'accept' })).status).toBe(200);
    await events.waitForEvent('turn/completed');
    expect(fs.readFileSync(file, 'utf8')).toBe('http');
  });
});
