import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyNotification, McpServerElicitationRequestResponse, PendingApproval, ThreadItem } from '../../shared/protocol/index.js';
import { mcpRuntimeApp } from '../../test-support/mcp-runtime-app.js';
import { everythingServerScript, filesystemServerScript, stdioServerToml } from '../../test-support/mcp-servers.js';
import { textInput as text, useMockAgentKit, type MockAgent } from '../../test-support/mock-agent-kit.js';
import { waitUntil } from '../../test-support/waiting.js';

/**
 * The agent's MCP tool calls under the person's trust settings, against the
 * real reference servers: a call that needs approval waits (persisted, sent
 * as Codex's `mcpServer/elicitation/request`), approve runs it, decline tells
 * the model and the turn goes on, trusted tools run unasked, "always" lands in
 * config.toml, and a restart ends a waiting approval clearly.
 */
const kit = useMockAgentKit({ killChildren: true });

type Answer = (response: McpServerElicitationRequestResponse) => void;

/** Approvals as a connected client gets them (attached to the runtime's sender): each with the way to answer it, in arrival order. */
function approvalInbox(a: Pick<MockAgent, 'runtime' | 'answerRequests'>) {
  const arrived: Array<{ pending: PendingApproval; answer: Answer }> = [];
  const wakes = new Set<() => void>();
  a.answerRequests('test-inbox', () => true, (request, answer) => {
    const pending = a.runtime.approvals.list().find((approval) => approval.requestId === request.id);
    if (!pending) return;
    arrived.push({ pending, answer });
    wakes.forEach((wake) => wake());
  });
  const next = (index: number) =>
    waitUntil(() => arrived[index], {
      what: `approval request ${index + 1}`,
      wakeOn: (wake) => {
        wakes.add(wake);
        return () => wakes.delete(wake);
      },
    });
  return { arrived, next };
}

const writeCall = (id: string, file: string, content: string) => ({
  type: 'toolCalls' as const,
  calls: [{ id, name: 'mcp__files__write_file', arguments: JSON.stringify({ path: file, content }) }],
});

const mcpItemOf = (n: AnyNotification): Extract<ThreadItem, { type: 'mcpToolCall' }> | null =>
  n.method === 'item/completed' && n.params.item.type === 'mcpToolCall' ? n.params.item : null;

describe('MCP tool calls and approvals', () => {
  it('waits for the person on an untrusted tool: approve runs it; decline tells the model and the turn goes on', async () => {
    const files = kit.tempDir('wh-mcp-files-');
    const a = mcpRuntimeApp(kit, stdioServerToml('files', filesystemServerScript, [files]));
    const inbox = approvalInbox(a);
    await a.startupDone();
    const { thread } = await a.call('thread/start', {});
    const approved = path.join(files, 'approved.txt');
    kit.mock.enqueue([writeCall('w1', approved, 'yes'), { type: 'finish' }], [{ type: 'text', text: 'Written.' }, { type: 'finish' }]);
    let mark = a.seen.length;
    await a.call('turn/start', { threadId: thread.id, input: text('write it') });

    const { pending } = await inbox.next(0);
    expect(pending.method).toBe('mcpServer/elicitation/request');
    if (pending.method !== 'mcpServer/elicitation/request') return;
    expect(pending.requestId).toBe(`mcp_tool_call_approval_${pending.itemId}`);
    expect(pending.params).toMatchObject({
      serverName: 'files',
      threadId: thread.id,
      mode: 'form',
      message: 'Allow the files MCP server to run tool "write_file"?',
      requestedSchema: { type: 'object', properties: {} },
      _meta: { codex_approval_kind: 'mcp_tool_call', persist: ['session', 'always'], tool_title: 'Write File', tool_params: { path: approved, content: 'yes' } },
    });
    // Waiting: listed, persisted, nothing written yet, and the item has started but not completed.
    expect((await a.call('approval/list', { threadId: thread.id })).data.map((p) => p.requestId)).toEqual([pending.requestId]);
    expect(a.runtime.services.durable.approvals.get(pending.requestId)?.state).toBe('pending');
    expect(fs.existsSync(approved)).toBe(false);
    expect(a.seen.some((n) => n.method === 'item/started' && n.params.item.id === pending.itemId)).toBe(true);
    // A window opening the thread now sees the waiting call in the running turn (not stored until it ends).
    const waitingRead = await a.call('thread/read', { threadId: thread.id, includeTurns: true });
    const waitingCall = { id: pending.itemId, type: 'mcpToolCall', server: 'files', tool: 'write_file', status: 'inProgress' };
    expect(waitingRead.thread.turns.at(-1)).toMatchObject({ status: 'inProgress' });
    expect(waitingRead.thread.turns.at(-1)!.items.filter((item) => item.type === 'mcpToolCall')).toEqual([expect.objectContaining(waitingCall)]);
    expect((await a.call('thread/resume', { threadId: thread.id })).items.filter((item) => item.type === 'mcpToolCall')).toEqual([expect.objectContaining(waitingCall)]);

    await a.call('approval/answer', { requestId: pending.requestId, decision: 'accept' });
    expect((await a.turnDone(mark)).status).toBe('completed');
    expect(fs.readFileSync(approved, 'utf8')).toBe('yes');
    expect(a.seen.some((n) => n.method === 'serverRequest/resolved' && n.params.requestId === pending.requestId)).toBe(true);
    expect(mcpItemOf(await a.waitFor((n) => mcpItemOf(n) !== null, mark))).toMatchObject({ tool: 'write_file', status: 'completed', readOnlyHint: false });

    // Decline: the call does not run, the model reads why, and the turn finishes.
    const declined = path.join(files, 'declined.txt');
    kit.mock.enqueue([writeCall('w2', declined, 'no'), { type: 'finish' }], [{ type: 'text', text: 'Understood.' }, { type: 'finish' }]);
    mark = a.seen.length;
    const before = kit.mock.requests.length;
    await a.call('turn/start', { threadId: thread.id, input: text('write another') });
    (await inbox.next(1)).answer({ action: 'decline' });
    const turn = await a.turnDone(mark);
    expect(turn.status).toBe('completed');
    expect(fs.existsSync(declined)).toBe(false);
    const item = mcpItemOf(await a.waitFor((n) => mcpItemOf(n) !== null, mark));
    expect(item).toMatchObject({ tool: 'write_file', status: 'failed', error: { message: 'user rejected MCP tool call' } });
    expect(JSON.stringify(kit.mock.requests[before + 1]?.body)).toContain('user rejected MCP tool call');
    expect((await a.call('approval/list', {})).data).toEqual([]);

    // "Allow for this thread" through approval/answer (the inbox's and the HTTP API's way): the next call in the thread is not asked.
    kit.mock.enqueue(
      [writeCall('w3', path.join(files, 'session-1.txt'), 's1'), { type: 'finish' }],
      [writeCall('w4', path.join(files, 'session-2.txt'), 's2'), { type: 'finish' }],
      [{ type: 'text', text: 'Both written.' }, { type: 'finish' }],
    );
    mark = a.seen.length;
    await a.call('turn/start', { threadId: thread.id, input: text('write two files') });
    await a.call('approval/answer', { requestId: (await inbox.next(2)).pending.requestId, decision: 'acceptForSession' });
    expect((await a.turnDone(mark)).status).toBe('completed');
    expect(fs.readFileSync(path.join(files, 'session-2.txt'), 'utf8')).toBe('s2');
    expect(inbox.arrived).toHaveLength(3);
  });

  it('runs trusted and read-only tools unasked, and "always allow" writes the trust to config.toml', async () => {
    const files = kit.tempDir('wh-mcp-files-');
    const trustedFiles = kit.tempDir('wh-mcp-files-');
    fs.writeFileSync(path.join(files, 'notes.txt'), 'remember the milk');
    const a = mcpRuntimeApp(
      kit,
      stdioServerToml('files', filesystemServerScript, [files]) +
        stdioServerToml('trusted', filesystemServerScript, [trustedFiles], 'default_tools_approval_mode = "approve"'),
    );
    const inbox = approvalInbox(a);
    await a.startupDone();
    const { thread } = await a.call('thread/start', {});
    kit.mock.enqueue(
      [
        {
          type: 'toolCalls',
          calls: [
            { id: 'r1', name: 'mcp__files__read_text_file', arguments: JSON.stringify({ path: path.join(files, 'notes.txt') }) },
            { id: 't1', name: 'mcp__trusted__write_file', arguments: JSON.stringify({ path: path.join(trustedFiles, 'a.txt'), content: 'trusted' }) },
          ],
        },
        { type: 'finish' },
      ],
      [{ type: 'text', text: 'Done.' }, { type: 'finish' }],
    );
    let mark = a.seen.length;
    await a.call('turn/start', { threadId: thread.id, input: text('read and write') });
    expect((await a.turnDone(mark)).status).toBe('completed');
    expect(inbox.arrived).toHaveLength(0);
    expect(fs.readFileSync(path.join(trustedFiles, 'a.txt'), 'utf8')).toBe('trusted');
    const reads = a.seen.flatMap((n) => (mcpItemOf(n)?.tool === 'read_text_file' ? [mcpItemOf(n)] : []));
    expect(reads).toMatchObject([{ status: 'completed', readOnlyHint: true }]);

    // "Allow and don't ask me again": runs, is written to config.toml, and the next call is not asked.
    kit.mock.enqueue([writeCall('w1', path.join(files, 'one.txt'), '1'), { type: 'finish' }], [{ type: 'text', text: 'ok' }, { type: 'finish' }]);
    mark = a.seen.length;
    await a.call('turn/start', { threadId: thread.id, input: text('write one') });
    (await inbox.next(0)).answer({ action: 'accept', _meta: { persist: 'always' } });
    expect((await a.turnDone(mark)).status).toBe('completed');
    expect(fs.readFileSync(path.join(files, 'one.txt'), 'utf8')).toBe('1');
    const config = fs.readFileSync(path.join(a.home, 'config.toml'), 'utf8');
    expect(config).toMatch(/\[mcp_servers\.files\.tools\.write_file\]\s+approval_mode = "approve"/);
    expect(a.seen.some((n) => n.method === 'config/changed' && n.params.keyPaths.includes('mcp_servers.files.tools'))).toBe(true);

    const { thread: other } = await a.call('thread/start', {});
    kit.mock.enqueue([writeCall('w2', path.join(files, 'two.txt'), '2'), { type: 'finish' }], [{ type: 'text', text: 'ok' }, { type: 'finish' }]);
    mark = a.seen.length;
    await a.call('turn/start', { threadId: other.id, input: text('write two') });
    expect((await a.turnDone(mark)).status).toBe('completed');
    expect(fs.readFileSync(path.join(files, 'two.txt'), 'utf8')).toBe('2');
    expect(inbox.arrived).toHaveLength(1);
  });

  it('"always" answered through approval/answer (as the desktop answers) writes the trust to config.toml', async () => {
    const files = kit.tempDir('wh-mcp-files-');
    const a = mcpRuntimeApp(kit, stdioServerToml('files', filesystemServerScript, [files]));
    const inbox = approvalInbox(a);
    await a.startupDone();
    const { thread } = await a.call('thread/start', {});
    kit.mock.enqueue([writeCall('w1', path.join(files, 'one.txt'), '1'), { type: 'finish' }], [{ type: 'text', text: 'ok' }, { type: 'finish' }]);
    const mark = a.seen.length;
    await a.call('turn/start', { threadId: thread.id, input: text('write one') });
    const { pending } = await inbox.next(0);
    await a.call('approval/answer', { requestId: pending.requestId, response: { action: 'accept', _meta: { persist: 'always' } } });
    expect((await a.turnDone(mark)).status).toBe('completed');
    expect(fs.readFileSync(path.join(files, 'one.txt'), 'utf8')).toBe('1');
    expect(fs.readFileSync(path.join(a.home, 'config.toml'), 'utf8')).toMatch(/\[mcp_servers\.files\.tools\.write_file\]\s+approval_mode = "approve"/);
    // A second answer is a typed error: the first one won.
    await expect(a.call('approval/answer', { requestId: pending.requestId, response: { action: 'accept' } })).rejects.toThrow(/not waiting/);
  });

  it('lets a PermissionRequest hook decline an MCP call before the person is asked', async () => {
    const files = kit.tempDir('wh-mcp-files-');
    const hooks = kit.tempDir('wh-mcp-hooks-');
    const script = path.join(hooks, 'no-writes.sh');
    fs.writeFileSync(
      script,
      `#!/bin/sh\ninput=$(cat)\necho "$input" >> ${JSON.stringify(path.join(hooks, 'heard.jsonl'))}\ncase "$input" in *'"phase":"requested"'*) echo '{"decision":"block","reason":"no writes today"}';; esac\n`,
      { mode: 0o755 },
    );
    const hookToml = `[[hooks.PermissionRequest]]\nmatcher = "^mcp__files__"\n[[hooks.PermissionRequest.hooks]]\nname = "no-writes"\ncommand = ["/bin/sh", ${JSON.stringify(script)}]\n\n`;
    const a = mcpRuntimeApp(kit, hookToml + stdioServerToml('files', filesystemServerScript, [files]));
    const inbox = approvalInbox(a);
    await a.startupDone();
    const { thread } = await a.call('thread/start', {});
    kit.mock.enqueue([writeCall('w1', path.join(files, 'hooked.txt'), 'x'), { type: 'finish' }], [{ type: 'text', text: 'Blocked.' }, { type: 'finish' }]);
    const mark = a.seen.length;
    await a.call('turn/start', { threadId: thread.id, input: text('write it') });
    expect((await a.turnDone(mark)).status).toBe('completed');
    const item = mcpItemOf(await a.waitFor((n) => mcpItemOf(n) !== null, mark));
    expect(item).toMatchObject({ status: 'failed', error: { message: "blocked by hook 'no-writes' at PermissionRequest: no writes today" } });
    expect(inbox.arrived).toHaveLength(0);
    expect(fs.existsSync(path.join(files, 'hooked.txt'))).toBe(false);
    const heard = fs.readFileSync(path.join(hooks, 'heard.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(heard.map((line) => [line['phase'], line['tool_name'], line['decision'] ?? null])).toEqual([
      ['requested', 'mcp__files__write_file', null],
      ['answered', 'mcp__files__write_file', 'decline'],
    ]);
  });

  it('ends a waiting MCP approval clearly when Wheelhouse restarts', async () => {
    const files = kit.tempDir('wh-mcp-files-');
    const home = kit.tempDir('wh-mcp-');
    fs.writeFileSync(path.join(home, 'config.toml'), stdioServerToml('files', filesystemServerScript, [files]));
    const a = mcpRuntimeApp(kit, '', { home });
    const inbox = approvalInbox(a);
    await a.startupDone();
    const { thread } = await a.call('thread/start', {});
    kit.mock.enqueue([writeCall('w1', path.join(files, 'never.txt'), 'x'), { type: 'finish' }]);
    await a.call('turn/start', { threadId: thread.id, input: text('write it') });
    const { pending } = await inbox.next(0);
    a.runtime.close();

    const b = mcpRuntimeApp(kit, '', { home });
    expect((await b.call('approval/list', {})).data).toEqual([]);
    expect(b.runtime.services.durable.approvals.get(pending.requestId)).toMatchObject({ state: 'ended' });
    const { thread: read } = await b.call('thread/read', { threadId: thread.id, includeTurns: true });
    expect(read.turns[0]?.status).toBe('interrupted');
    const item = read.turns[0]?.items.find((i) => i.type === 'mcpToolCall');
    expect(item).toMatchObject({ tool: 'write_file', status: 'failed', error: { message: expect.stringContaining('waited for approval; it did not run') } });
    expect(fs.existsSync(path.join(files, 'never.txt'))).toBe(false);
  });

  it('starts stdio servers under the runtime supervisor, from the login-shell environment', async () => {
    const marker = kit.tempDir('wh-login-path-');
    const loginEnvironment = async () => ({
      env: { ...(process.env as Record<string, string>), PATH: `${marker}:${process.env.PATH ?? ''}`, WHEELHOUSE_LOGIN_ONLY: 'from-login-shell' },
      shell: '/bin/sh',
      source: 'login-shell' as const,
      note: null,
    });
    const a = mcpRuntimeApp(kit, stdioServerToml('everything', everythingServerScript), { runtime: { loginEnvironment } });
    await a.startupDone();
    const { thread } = await a.call('thread/start', {});
    const result = await a.call('mcpServer/tool/call', { server: 'everything', tool: 'get-env', threadId: thread.id, arguments: {} });
    const env = JSON.parse((result.content[0] as { text: string }).text) as Record<string, string>;
    expect(env.PATH?.split(':')[0]).toBe(marker);
    expect(env.WHEELHOUSE_LOGIN_ONLY).toBe('from-login-shell');
    // The server runs as one of the supervisor's processes (killed with the rest on quit).
    const [pid] = a.runtime.services.mcp.servers().flatMap((slot) => (slot.connection?.pid ? [slot.connection.pid] : []));
    expect(a.runtime.services.supervisor.list().some((child) => child.pid === pid)).toBe(true);
  });
});
