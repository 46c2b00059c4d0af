import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createModelClient } from '../../../electron/model/create-model-client.js';
import { RpcHost } from '../../../electron/server/rpc-host.js';
import { execCall, textReply } from '../../../test-support/agent-commands.js';
import { startMockModelServer, type MockModelServer } from '../../../test-support/mock-model/index.js';
import { mockProvider } from '../../../test-support/mock-model/model-test-kit.js';
import { createTestRuntime } from '../../../test-support/test-runtime.js';
import { waitUntil } from '../../../test-support/waiting.js';
import type { ClosableTransport } from '../client/websocket-transport.js';
import { WheelhouseClient } from '../client/wheelhouse-client.js';
import { selectRange, sessionScopeText } from './approval-requests.js';
import { createApprovalsStore } from './approvals-store.js';

/**
 * The approvals store of two windows on one real runtime (in-memory links
 * a test can cut), with the mock model asking to run commands in two
 * threads: badge counts, batch answers, and requests answered elsewhere.
 */

let mock: MockModelServer;
beforeAll(async () => {
  mock = await startMockModelServer();
});
afterAll(async () => {
  await mock.close();
});
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'wh-approvals-store-'));
  const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wh-approvals-project-')));
  const provider = mockProvider(mock, 'chat');
  const runtime = createTestRuntime({
    home,
    defaults: { cwd: project },
    bindModel: async () => ({ client: createModelClient(provider), model: 'deepseek-chat', contextWindow: 128_000 }),
  });
  const host = new RpcHost(runtime);
  let completedTurns = 0;
  runtime.events.subscribe((notification) => void (notification.method === 'turn/completed' && (completedTurns += 1)));
  cleanups.push(async () => {
    host.close();
    await runtime.shutdown();
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(project, { recursive: true, force: true });
  });

  /** One window: its own client and approvals store; `cut` drops its link as a lost WebSocket would. */
  const openWindow = () => {
    let cut: () => void = () => undefined;
    /** Delivers a message to the window as if the runtime sent it; what the window sends back is kept in `sent`. */
    let deliver: (text: string) => void = () => undefined;
    const sent: unknown[] = [];
    /** While set, a write to the link fails as a broken socket's would (the link itself stays up). */
    let writesFail = false;
    const connector = async (): Promise<ClosableTransport> => {
      const messages = new Set<(text: string) => void>();
      const closes = new Set<(reason: string) => void>();
      let open = true;
      const connection = host.connect('in-process', { send: (text) => queueMicrotask(() => open && messages.forEach((listener) => listener(text))) });
      const close = () => {
        if (!open) return;
        open = false;
        host.disconnect(connection);
        closes.forEach((listener) => listener('cut'));
      };
      cut = close;
      deliver = (text) => messages.forEach((listener) => listener(text));
      return {
        send: (text) => {
          if (writesFail) throw new Error('the socket refused the write');
          sent.push(JSON.parse(text));
          if (open) connection.receive(text);
        },
        onMessage: (listener) => (messages.add(listener), () => messages.delete(listener)),
        onClose: (listener) => (closes.add(listener), () => closes.delete(listener)),
        close,
      };
    };
    const client = new WheelhouseClient({ connector, reconnect: true, clientVersion: 'test' });
    const store = createApprovalsStore(client);
    client.start();
    cleanups.push(() => client.stop());
    /**
     * A newer runtime asks this window something it has no view for: the request
     * goes in on the window's link (this runtime declares no such method) and the answer is read off it.
     */
    const askUnknown = (id: string, method: string, params: unknown) => {
      deliver(JSON.stringify({ id, method, params }));
      return { answer: () => sent.find((message) => (message as { id?: unknown; method?: unknown }).id === id && !('method' in (message as object))) };
    };
    /** The params of each request of `method` this window sent, oldest first. */
    const sentParams = (method: string) =>
      sent.flatMap((message) => ((message as { method?: unknown }).method === method ? [(message as { params: unknown }).params] : []));
    return {
      client,
      store,
      cut: () => cut(),
      askUnknown,
      sentParams,
      deliver: (text: string) => deliver(text),
      failWrites: (on: boolean) => void (writesFail = on),
    };
  };

  const until = (check: () => boolean, what: string) => waitUntil(check, { what, intervalMs: 5 });

  /** Starts a thread whose agent asks to run `command`, and waits until `window` shows the request. */
  const askInNewThread = async (window: ReturnType<typeof openWindow>, command: string) => {
    mock.enqueue(execCall(command));
    const { thread } = await window.client.request('thread/start', { cwd: project, approvalPolicy: 'untrusted', sandbox: 'danger-full-access' });
    const before = window.store.getState().pending.length;
    await window.client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: `run ${command}` }] });
    await until(() => window.store.getState().pending.length === before + 1, `the request for ${command}`);
    return thread.id;
  };

  const turnsCompleted = (count: number) => until(() => completedTurns >= count, `${count} turns completed`);
  /** The agent's replies once its commands ran (the mock answers requests in order, across threads). */
  const afterCommands = (count: number) => mock.enqueue(...Array.from({ length: count }, () => textReply('Done.')));

  return { project, openWindow, until, askInNewThread, turnsCompleted, afterCommands };
}

describe('the approvals store', () => {
  it('counts requests of every thread in every window; a batch approve answers them all and the other window drops them with notes', async () => {
    const { project, openWindow, until, askInNewThread, turnsCompleted, afterCommands } = setup();
    const a = openWindow();
    const b = openWindow();
    await until(() => a.client.getSnapshot().status === 'connected' && b.client.getSnapshot().status === 'connected', 'both connected');
    const first = await askInNewThread(a, 'touch first.txt');
    const second = await askInNewThread(a, 'touch second.txt');
    await until(() => b.store.getState().pending.length === 2, 'the other window shows both');
    expect(a.store.getState().pending.map((request) => request.threadId)).toEqual([first, second]);
    // What "approve for this thread" would allow, from approval/list.
    await until(() => Object.keys(a.store.getState().sessionScopes).length === 2, 'scopes loaded');
    const [one, two] = a.store.getState().pending;
    expect(a.store.getState().sessionScopes[one!.requestId]).toEqual([['touch', 'first.txt']]);

    afterCommands(2);
    a.store.getState().selectAll(true);
    expect(a.store.getState().answerMany(a.store.getState().selected, 'approve')).toBe(2);
    // Both stay, waiting on their answers, until the runtime takes them.
    expect([...a.store.getState().answering]).toEqual([one!.requestId, two!.requestId]);
    await until(() => a.store.getState().pending.length === 0, 'both answered');
    expect(a.store.getState().selected.size).toBe(0);
    await until(() => b.store.getState().pending.length === 0, 'the other window drops both');
    expect(b.store.getState().notes.map((note) => [note.requestId, note.summary])).toEqual([
      [one!.requestId, 'Run touch first.txt'],
      [two!.requestId, 'Run touch second.txt'],
    ]);
    // The window that answered gets no "answered elsewhere" note.
    expect(a.store.getState().notes).toEqual([]);
    await turnsCompleted(2);
    expect(fs.existsSync(path.join(project, 'first.txt'))).toBe(true);
    expect(fs.existsSync(path.join(project, 'second.txt'))).toBe(true);
  });

  it('a row answered in another window leaves the selection; the batch answers only the rest, without an error', async () => {
    const { project, openWindow, until, askInNewThread, turnsCompleted, afterCommands } = setup();
    const a = openWindow();
    const b = openWindow();
    await until(() => a.client.getSnapshot().status === 'connected' && b.client.getSnapshot().status === 'connected', 'both connected');
    await askInNewThread(a, 'touch denied.txt');
    await askInNewThread(a, 'touch approved.txt');
    await until(() => b.store.getState().pending.length === 2, 'the other window shows both');
    const [denied, approved] = a.store.getState().pending.map((request) => request.requestId);
    a.store.getState().selectAll(true);
    const chosen = [...a.store.getState().selected];
    expect(chosen).toEqual([denied, approved]);

    afterCommands(2);
    // The other window denies the first one before this one answers.
    expect(b.store.getState().answerMany([denied!], 'deny')).toBe(1);
    await until(() => a.store.getState().pending.length === 1, 'answered elsewhere disappears');
    expect([...a.store.getState().selected]).toEqual([approved]);
    expect(a.store.getState().notes.map((note) => note.summary)).toEqual(['Run touch denied.txt']);
    expect(a.store.getState().answerMany(chosen, 'approve')).toBe(1);
    await turnsCompleted(2);
    expect(fs.existsSync(path.join(project, 'denied.txt'))).toBe(false);
    expect(fs.existsSync(path.join(project, 'approved.txt'))).toBe(true);
    a.store.getState().dismissNote(denied!);
    expect(a.store.getState().notes).toEqual([]);
  });

  it('the count is right again after a reconnect and in a new window; grants of every thread list and revoke', async () => {
    const { openWindow, until, askInNewThread, turnsCompleted, afterCommands } = setup();
    const a = openWindow();
    await until(() => a.client.getSnapshot().status === 'connected', 'connected');
    const granted = await askInNewThread(a, 'touch granted.txt');
    await askInNewThread(a, 'touch waiting.txt');

    a.cut();
    await until(() => a.store.getState().pending.length === 0 && a.client.getSnapshot().status !== 'connected', 'link down');
    await until(() => a.client.getSnapshot().status === 'connected' && a.store.getState().pending.length === 2, 'both back after reconnect');
    const late = openWindow();
    await until(() => late.store.getState().pending.length === 2, 'a new window shows both');

    afterCommands(1);
    const request = late.store.getState().pending.find((known) => known.threadId === granted)!;
    late.store.getState().answerCommand(request.requestId, 'acceptForSession');
    await until(() => a.store.getState().pending.length === 1, 'the grant’s request answered');
    await turnsCompleted(1);
    await a.store.getState().loadAllGrants();
    expect(Object.values(a.store.getState().grants).flat().map((grant) => [grant.threadId, grant.prefix])).toEqual([[granted, ['touch', 'granted.txt']]]);
    await late.store.getState().revokeGrant(granted, ['touch', 'granted.txt']);
    await until(() => (a.store.getState().grants[granted] ?? []).length === 0, 'revoked everywhere');
  });
});

describe('an answer that does not go through', () => {
  it('keeps the request waiting with the reason shown, and a second answer gets it through', async () => {
    const { project, openWindow, until, askInNewThread, turnsCompleted, afterCommands } = setup();
    const a = openWindow();
    await until(() => a.client.getSnapshot().status === 'connected', 'connected');
    await askInNewThread(a, 'touch retried.txt');
    const [request] = a.store.getState().pending;

    a.failWrites(true);
    a.store.getState().answerCommand(request!.requestId, 'accept');
    await until(() => a.store.getState().failures[request!.requestId] !== undefined, 'the failure shown');
    expect(a.store.getState().pending.map((known) => known.requestId)).toEqual([request!.requestId]);
    expect(a.store.getState().answering.size).toBe(0);
    expect(a.store.getState().failures[request!.requestId]).toMatch(/^Send failed: the socket refused the write\.$/);
    expect(fs.existsSync(path.join(project, 'retried.txt'))).toBe(false);

    a.failWrites(false);
    afterCommands(1);
    a.store.getState().answerCommand(request!.requestId, 'accept');
    await until(() => a.store.getState().pending.length === 0, 'answered the second time');
    expect(a.store.getState().failures).toEqual({});
    expect(a.store.getState().notes).toEqual([]);
    await turnsCompleted(1);
    expect(fs.existsSync(path.join(project, 'retried.txt'))).toBe(true);
  });

  it('drops a request the runtime no longer waits on, without a failure', async () => {
    const { openWindow, until } = setup();
    const a = openWindow();
    await until(() => a.client.getSnapshot().status === 'connected', 'connected');
    // A request the runtime already settled (its server request arriving late, say).
    const params = { threadId: 't-gone', turnId: 'turn-1', itemId: 'item-1', startedAtMs: 1, command: 'ls', cwd: '/', reason: null };
    a.deliver(JSON.stringify({ id: 'stale-1', method: 'item/commandExecution/requestApproval', params }));
    await until(() => a.store.getState().pending.length === 1, 'the stale request shown');
    a.store.getState().answerCommand('stale-1', 'accept');
    await until(() => a.store.getState().pending.length === 0, 'dropped');
    expect(a.store.getState().failures).toEqual({});
  });
});

describe('an MCP tool call answered with a remembered choice', () => {
  it('sends its elicitation answer verbatim, so "always" and "for this thread" reach the runtime', async () => {
    const { openWindow, until } = setup();
    const a = openWindow();
    await until(() => a.client.getSnapshot().status === 'connected', 'connected');
    // Requests the runtime is not waiting on (as the elicitation store hands them over): only what the window sends is under test here.
    const ask = (itemId: string) =>
      void a.store.getState().receiveMcpToolApproval(
        {
          threadId: 't-mcp',
          turnId: 'turn-1',
          serverName: 'files',
          mode: 'form',
          message: 'Allow the files MCP server to run tool "write_file"?',
          requestedSchema: { type: 'object', properties: {} },
          _meta: { codex_approval_kind: 'mcp_tool_call', persist: ['session', 'always'] },
        },
        `mcp_tool_call_approval_${itemId}`,
      );
    ask('always');
    ask('session');
    await until(() => a.store.getState().pending.length === 2, 'both requests shown');
    a.store.getState().answerMcpTool('mcp_tool_call_approval_always', { action: 'accept', _meta: { persist: 'always' } });
    a.store.getState().answerMcpTool('mcp_tool_call_approval_session', { action: 'accept', _meta: { persist: 'session' } });
    await until(() => a.store.getState().pending.length === 0, 'both answered');
    expect(a.sentParams('approval/answer')).toEqual([
      { requestId: 'mcp_tool_call_approval_always', response: { action: 'accept', _meta: { persist: 'always' } } },
      { requestId: 'mcp_tool_call_approval_session', response: { action: 'accept', _meta: { persist: 'session' } } },
    ]);
  });
});

describe('requests of unknown types', () => {
  it('count and show with their thread or job; accept and decline answer them, singly or in a batch', async () => {
    const { openWindow, until } = setup();
    const a = openWindow();
    await until(() => a.client.getSnapshot().status === 'connected', 'connected');
    const fromJob = a.askUnknown('u1', 'job/permissions/requestApproval', { jobId: 'job-7', permissions: ['network'] });
    const fromNowhere = a.askUnknown('u2', 'app/somethingNew/request', { detail: 42 });
    const fromThread = a.askUnknown('u3', 'item/permissions/requestApproval', { threadId: 't-1', reason: 'network access' });
    await until(() => a.store.getState().pending.length === 3, 'all three shown');
    expect(a.store.getState().pending.map((request) => (request.kind === 'other' ? [request.method, request.threadId, request.jobId] : null))).toEqual([
      ['job/permissions/requestApproval', null, 'job-7'],
      ['app/somethingNew/request', null, null],
      ['item/permissions/requestApproval', 't-1', null],
    ]);
    a.store.getState().answerOther('u1', false);
    await until(() => fromJob.answer() !== undefined, 'the job’s request answered');
    expect(fromJob.answer()).toEqual({ id: 'u1', result: { decision: 'decline' } });
    expect(a.store.getState().answerMany(['u2', 'u3'], 'approve')).toBe(2);
    await until(() => fromThread.answer() !== undefined && fromNowhere.answer() !== undefined, 'both answered');
    expect(fromNowhere.answer()).toEqual({ id: 'u2', result: { decision: 'accept' } });
    expect(fromThread.answer()).toEqual({ id: 'u3', result: { decision: 'accept' } });
    expect(a.store.getState().pending).toEqual([]);
  });
});

describe('inbox helpers', () => {
  it('shift-click selects (or clears) the range from the last row clicked, in list order', () => {
    const order = ['r1', 'r2', 'r3', 'r4', 'r5'];
    expect([...selectRange(order, new Set(['r1']), 'r4', 'r2', true)].sort()).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect([...selectRange(order, new Set(order), 'r2', 'r4', false)].sort()).toEqual(['r1', 'r5']);
    // Without an anchor (or with one answered meanwhile) only the clicked row changes.
    expect([...selectRange(order, new Set(), 'gone', 'r3', true)]).toEqual(['r3']);
  });

  it('words the scope of "approve for this thread" before it is granted', () => {
    expect(sessionScopeText([['npm', 'test']], 'npm test -- --watch', 'Fix login')).toBe(
      'Commands starting with `npm test` in thread ‘Fix login’, until Wheelhouse restarts or you revoke it',
    );
    expect(sessionScopeText([['make'], ['rm', 'out.txt']], 'make && rm out.txt', 'T')).toContain('`make` or `rm out.txt` in thread ‘T’');
    expect(sessionScopeText(undefined, 'ls -la', 'T')).toContain('`ls -la`');
  });
});
