import { describe, expect, it } from 'vitest';
import type { RequestMessage, Turn } from '../../shared/protocol/index.js';
import type { AppServerProcess } from '../../test-support/app-server-process.js';
import { useStdioAgentHomes } from '../../test-support/stdio-agent-home.js';

/**
 * Client-side tools over JSON-RPC as Codex does them: `dynamicTools` on
 * thread/start, the server request `item/tool/call`, answered with
 * `{success, contentItems}`; a real app-server process and the mock model.
 */
const stdio = useStdioAgentHomes();

function home(): string {
  return stdio.makeHome('wheelhouse-tools-').home;
}

const reservationTools = [
  {
    type: 'namespace' as const,
    name: 'tau_bench',
    description: 'Airline tools',
    tools: [
      {
        type: 'function' as const,
        name: 'get_reservation',
        description: 'Look up an airline reservation.',
        inputSchema: {
          type: 'object',
          properties: { reservation_id: { type: 'string' } },
          required: ['reservation_id'],
          additionalProperties: false,
        },
      },
    ],
  },
];

const text = (t: string) => [{ type: 'text' as const, text: t }];

function callTool(args: string, id = 'call_1') {
  return [{ type: 'toolCalls' as const, calls: [{ id, name: 'tau_bench__get_reservation', arguments: args }] }, { type: 'finish' as const, reason: 'tool_calls' as const }];
}

async function toolRequest(server: AppServerProcess, timeoutMs?: number): Promise<RequestMessage> {
  const received = await server.peer.inbox.take(
    (r) => r.kind === 'request' && r.message.method === 'item/tool/call',
    'item/tool/call',
    timeoutMs,
  );
  return received.message as RequestMessage;
}

async function turnEnd(server: AppServerProcess): Promise<Turn> {
  const completed = await server.peer.inbox.notification('turn/completed');
  return (completed.params as { turn: Turn }).turn;
}

/** The text the runtime handed back to the model for the tool call, in the next request. */
function toolMessageIn(requestIndex: number): string {
  const messages = (stdio.mock.requests[requestIndex]!.body as { messages: { role: string; content: string }[] }).messages;
  return messages.find((m) => m.role === 'tool')?.content ?? '';
}

describe('client-side tools over JSON-RPC', () => {
  it('offers <namespace>__<name> to the model, sends item/tool/call and feeds the answer back', async () => {
    const dir = home();
    const server = stdio.start(dir);
    await server.peer.initialize();
    stdio.mock.enqueue(callTool('{"reservation_id":"ABC123"}'), [{ type: 'text', text: 'Confirmed.' }, { type: 'finish' }]);
    const before = stdio.mock.requests.length;
    const { thread } = await server.peer.call('thread/start', { cwd: dir, dynamicTools: reservationTools });
    const { turn } = await server.peer.call('turn/start', { threadId: thread.id, input: text('check ABC123') });

    const request = await toolRequest(server);
    expect(request.params).toEqual({
      threadId: thread.id,
      turnId: turn.id,
      callId: 'call_1',
      namespace: 'tau_bench',
      tool: 'get_reservation',
      arguments: { reservation_id: 'ABC123' },
    });
    // While the client works on it, a window that opens the thread sees the call running.
    const { thread: read } = await server.peer.call('thread/read', { threadId: thread.id, includeTurns: true });
    const running = read.turns.at(-1)!;
    expect(running.status).toBe('inProgress');
    expect(running.items.filter((item) => item.type === 'dynamicToolCall')).toEqual([
      expect.objectContaining({ status: 'inProgress', tool: 'tau_bench__get_reservation', callId: 'call_1' }),
    ]);
    server.peer.sendRaw(JSON.stringify({ id: request.id, result: { success: true, contentItems: [{ type: 'inputText', text: '{"status":"confirmed"}' }] } }));
    expect((await turnEnd(server)).status).toBe('completed');

    const offered = (stdio.mock.requests[before]!.body as { tools: { function: { name: string; parameters: unknown } }[] }).tools;
    expect(offered.map((t) => t.function.name)).toContain('tau_bench__get_reservation');
    expect(offered.find((t) => t.function.name === 'tau_bench__get_reservation')!.function.parameters).toEqual(reservationTools[0]!.tools[0]!.inputSchema);
    expect(toolMessageIn(before + 1)).toBe('{"status":"confirmed"}');
  });

  it('refuses arguments that break input_schema before the client sees them; the model reads why', async () => {
    const dir = home();
    const server = stdio.start(dir);
    await server.peer.initialize();
    stdio.mock.enqueue(callTool('{"reservation_id":5}'), [{ type: 'text', text: 'Sorry.' }, { type: 'finish' }]);
    const before = stdio.mock.requests.length;
    const { thread } = await server.peer.call('thread/start', { cwd: dir, dynamicTools: reservationTools });
    await server.peer.call('turn/start', { threadId: thread.id, input: text('check') });
    expect((await turnEnd(server)).status).toBe('completed');
    expect(toolMessageIn(before + 1)).toMatch(/Invalid arguments for tau_bench__get_reservation: arguments\/reservation_id must be string/);
    // One stdout carries both in order: a request sent before turn/completed would be here already.
    await expect(toolRequest(server, 50)).rejects.toThrow(/timed out/);
  });

  it('a call the client does not answer in time fails with a timeout and the turn goes on', async () => {
    const dir = home();
    const server = stdio.start(dir, { env: { WHEELHOUSE_CLIENT_TOOL_TIMEOUT_MS: '300' } });
    await server.peer.initialize();
    stdio.mock.enqueue(callTool('{"reservation_id":"X"}'), [{ type: 'text', text: 'It timed out.' }, { type: 'finish' }]);
    const before = stdio.mock.requests.length;
    const { thread } = await server.peer.call('thread/start', { cwd: dir, dynamicTools: reservationTools });
    await server.peer.call('turn/start', { threadId: thread.id, input: text('check') });
    const request = await toolRequest(server);
    expect((await turnEnd(server)).status).toBe('completed');
    expect(toolMessageIn(before + 1)).toMatch(/did not answer within 300 ms/);
    // A late answer changes nothing and is not an error the process reports.
    server.peer.sendRaw(JSON.stringify({ id: request.id, result: { success: true, contentItems: [] } }));
    expect((await server.peer.call('thread/read', { threadId: thread.id })).thread.id).toBe(thread.id);
  });

  it('keeps the tools with the thread across a restart; the resuming connection answers them', async () => {
    const dir = home();
    const first = stdio.start(dir);
    await first.peer.initialize();
    const { thread } = await first.peer.call('thread/start', { cwd: dir, dynamicTools: reservationTools });
    first.endInput();
    await first.exited;

    stdio.mock.enqueue(callTool('{"reservation_id":"R1"}'), [{ type: 'text', text: 'Done.' }, { type: 'finish' }]);
    const before = stdio.mock.requests.length;
    const second = stdio.start(dir);
    await second.peer.initialize();
    await second.peer.call('thread/resume', { threadId: thread.id });
    await second.peer.call('turn/start', { threadId: thread.id, input: text('again') });
    const request = await toolRequest(second);
    expect(request.params).toMatchObject({ tool: 'get_reservation', arguments: { reservation_id: 'R1' } });
    second.peer.sendRaw(JSON.stringify({ id: request.id, result: { success: false, contentItems: [{ type: 'inputText', text: 'not found' }] } }));
    expect((await turnEnd(second)).status).toBe('completed');
    expect(toolMessageIn(before + 1)).toBe('not found');
  });

  it('a call still waiting when the runtime is killed ends failed ("canceled by restart"); the thread goes on', async () => {
    const dir = home();
    const first = stdio.start(dir);
    await first.peer.initialize();
    stdio.mock.enqueue(callTool('{"reservation_id":"K1"}'));
    const { thread } = await first.peer.call('thread/start', { cwd: dir, dynamicTools: reservationTools });
    const { turn } = await first.peer.call('turn/start', { threadId: thread.id, input: text('check') });
    await toolRequest(first);
    await first.process.stop('SIGKILL');

    const second = stdio.start(dir);
    await second.peer.initialize();
    const read = await second.peer.call('thread/read', { threadId: thread.id, includeTurns: true });
    expect(read.thread.turns.find((t) => t.id === turn.id)?.status).toBe('interrupted');
    expect(read.items.find((i) => i.turnId === turn.id && 'callId' in i)).toMatchObject({
      callId: 'call_1',
      status: 'failed',
      success: false,
      output: 'canceled by restart',
    });
    stdio.mock.enqueue([{ type: 'text', text: 'Back.' }, { type: 'finish' }]);
    await second.peer.call('thread/resume', { threadId: thread.id });
    await second.peer.call('turn/start', { threadId: thread.id, input: text('go on') });
    expect((await turnEnd(second)).status).toBe('completed');
  });

  it('a fork keeps the thread tools', async () => {
    const dir = home();
    const server = stdio.start(dir);
    await server.peer.initialize();
    const { thread } = await server.peer.call('thread/start', { cwd: dir, dynamicTools: reservationTools });
    const fork = await server.peer.call('thread/fork', { threadId: thread.id });
    stdio.mock.enqueue(callTool('{"reservation_id":"F1"}'), [{ type: 'text', text: 'Done.' }, { type: 'finish' }]);
    await server.peer.call('turn/start', { threadId: fork.thread.id, input: text('in the fork') });
    const request = await toolRequest(server);
    expect(request.params).toMatchObject({ threadId: fork.thread.id, tool: 'get_reservation' });
    server.peer.sendRaw(JSON.stringify({ id: request.id, result: { success: true, contentItems: [{ type: 'inputText', text: 'ok' }] } }));
    expect((await turnEnd(server)).status).toBe('completed');
  });

  it('refuses a tool spec that cannot work, creating no thread', async () => {
    const dir = home();
    const server = stdio.start(dir);
    await server.peer.initialize();
    const bad = [
      [{ type: 'function', name: 'broken', description: 'x', inputSchema: { type: 'nope' } }],
      [{ type: 'function', name: 'read_file', description: 'shadows a built-in', inputSchema: { type: 'object' } }],
      [{ type: 'function', name: 'twice', description: 'a', inputSchema: {} }, { type: 'function', name: 'twice', description: 'b', inputSchema: {} }],
    ];
    for (const dynamicTools of bad) {
      const response = await server.peer.request('thread/start', { cwd: dir, dynamicTools });
      expect('error' in response && response.error.code).toBe(-32602);
    }
    expect((await server.peer.call('thread/list', {})).data).toHaveLength(0);
  });
});
