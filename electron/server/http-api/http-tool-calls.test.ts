import { afterAll, describe, expect, it } from 'vitest';
import { HttpApiClient, useServedHome, writeMockModelConfig, type HttpAnswer } from '../../../test-support/http-api-client.js';
import type { MockModelServer } from '../../../test-support/mock-model/index.js';
import { startServe } from '../../../test-support/serve-process.js';
import type { SseEvent } from '../../../test-support/sse-client.js';
import { TempDirs } from '../../../test-support/temp-dir.js';

/** Client-side tools over the HTTP API of a real `wheelhouse serve`, answered over HTTP. */
const temp = new TempDirs();
afterAll(() => temp.cleanup());
let mock: MockModelServer;
let client: HttpApiClient;
let home: string;
useServedHome('wheelhouse-http-tools-', (parts) => ({ mock, client, home } = parts));

const api = (method: string, route: string, body?: unknown): Promise<HttpAnswer> => client.call(method, route, body);
const subscribe = (route: string) => client.subscribe(route);
const isTurnEnd = (e: SseEvent) => e.event === 'turn/completed';

async function newThread(): Promise<{ id: string; latestSeq: number }> {
  const created = await api('POST', '/threads', { cwd: home });
  expect(created.status).toBe(201);
  const read = await api('GET', `/threads/${created.body.thread.id}`);
  return { id: created.body.thread.id, latestSeq: read.body.latest_seq };
}

const reservationTool = {
  namespace: 'tau_bench',
  name: 'get_reservation',
  description: 'Look up an airline reservation.',
  input_schema: {
    type: 'object',
    properties: { reservation_id: { type: 'string' } },
    required: ['reservation_id'],
    additionalProperties: false,
  },
};

function modelCallsTool(args: string) {
  return [
    { type: 'toolCalls' as const, calls: [{ id: 'call_http', name: 'tau_bench__get_reservation', arguments: args }] },
    { type: 'finish' as const, reason: 'tool_calls' as const },
  ];
}

function toolMessageIn(requestIndex: number): string {
  const messages = (mock.requests[requestIndex]!.body as { messages: { role: string; content: string }[] }).messages;
  return messages.find((m) => m.role === 'tool')?.content ?? '';
}

describe('HTTP API: client-side tools', () => {
  it('announces tool_call.requested over SSE and takes the first answer; refuses another turn, a repeat and an unknown call', async () => {
    const created = await api('POST', '/threads', { cwd: home, dynamic_tools: [reservationTool] });
    expect(created.status).toBe(201);
    const id = created.body.thread.id as string;
    const { latest_seq: latestSeq } = (await api('GET', `/threads/${id}`)).body;
    mock.enqueue(modelCallsTool('{"reservation_id":"ABC123"}'), [{ type: 'text', text: 'Confirmed.' }, { type: 'finish' }]);
    const before = mock.requests.length;
    const stream = await subscribe(`/threads/${id}/events?since_seq=${latestSeq}`);
    const { body } = await api('POST', `/threads/${id}/turns`, { input: 'check ABC123' });
    const turnId = body.turn.id as string;

    const requested = await stream.waitForEvent('tool_call.requested');
    expect((requested.json as { payload: unknown }).payload).toEqual({
      thread_id: id,
      turn_id: turnId,
      call_id: 'call_http',
      namespace: 'tau_bench',
      tool: 'get_reservation',
      arguments: { reservation_id: 'ABC123' },
    });
    const answer = { success: true, content: [{ type: 'input_text', text: '{"status":"confirmed"}' }] };
    const wrongTurn = await api('POST', `/threads/${id}/tool-calls/call_http`, { ...answer, turn_id: 'another-turn' });
    expect(wrongTurn.status).toBe(409);
    expect(wrongTurn.body.error.code).toBe('turn_mismatch');
    const badBody = await api('POST', `/threads/${id}/tool-calls/call_http`, { success: 'yes' });
    expect(badBody.status).toBe(400);
    const accepted = await api('POST', `/threads/${id}/tool-calls/call_http`, { ...answer, turn_id: turnId });
    expect(accepted.status).toBe(200);
    const repeat = await api('POST', `/threads/${id}/tool-calls/call_http`, answer);
    expect(repeat.status).toBe(409);
    expect(repeat.body.error.code).toBe('tool_call_finished');
    expect((await api('POST', `/threads/${id}/tool-calls/no-such-call`, answer)).status).toBe(404);

    const end = await stream.waitFor(isTurnEnd);
    expect((end.json as { payload: { turn: { status: string } } }).payload.turn.status).toBe('completed');
    expect(toolMessageIn(before + 1)).toBe('{"status":"confirmed"}');
    const offered = (mock.requests[before]!.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    expect(offered).toContain('tau_bench__get_reservation');
  });

  it('takes tools that come with a turn; a turn that cannot start adds none', async () => {
    const { id, latestSeq } = await newThread();
    const stream = await subscribe(`/threads/${id}/events?since_seq=${latestSeq}`);
    const broken = await api('POST', `/threads/${id}/turns`, { input: 'x', dynamic_tools: [{ ...reservationTool, input_schema: { type: 'nope' } }] });
    expect(broken.status).toBe(400);
    // Refused by the thread's state after the tools were checked: they are taken back.
    await api('PATCH', `/threads/${id}`, { archived: true });
    expect((await api('POST', `/threads/${id}/turns`, { input: 'x', dynamic_tools: [reservationTool] })).status).toBe(409);
    await api('PATCH', `/threads/${id}`, { archived: false });
    mock.enqueue([{ type: 'text', text: 'No tools here.' }, { type: 'finish' }]);
    const plain = mock.requests.length;
    await api('POST', `/threads/${id}/turns`, { input: 'plain' });
    await stream.waitFor(isTurnEnd);
    const offeredPlain = (mock.requests[plain]!.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    expect(offeredPlain).not.toContain('tau_bench__get_reservation');
    stream.events.splice(0);

    mock.enqueue(modelCallsTool('{"reservation_id":"T1"}'), [{ type: 'text', text: 'Done.' }, { type: 'finish' }]);
    const before = mock.requests.length;
    const started = await api('POST', `/threads/${id}/turns`, { input: 'check T1', dynamic_tools: [reservationTool] });
    expect(started.status).toBe(201);
    const requested = await stream.waitForEvent('tool_call.requested');
    expect((requested.json as { payload: { tool: string; arguments: unknown } }).payload).toMatchObject({ tool: 'get_reservation', arguments: { reservation_id: 'T1' } });
    const answered = await api('POST', `/threads/${id}/tool-calls/call_http`, { success: true, content: [{ type: 'input_text', text: 'found' }] });
    expect(answered.status).toBe(200);
    await stream.waitFor(isTurnEnd);
    expect(toolMessageIn(before + 1)).toBe('found');
  });

  it('refuses a tool whose input_schema is not a JSON Schema, creating nothing', async () => {
    const before = (await api('GET', '/threads')).body.data.length;
    const refused = await api('POST', '/threads', { cwd: home, dynamic_tools: [{ ...reservationTool, input_schema: { type: 'nope' } }] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/inputSchema is not a valid JSON Schema/);
    expect((await api('GET', '/threads')).body.data.length).toBe(before);
  });

  it('a call nobody answers in time fails with a timeout, the turn goes on, and a late answer is refused', async () => {
    const slowHome = temp.make('wheelhouse-http-timeout-');
    writeMockModelConfig(slowHome, mock.url);
    const slow = await startServe({ home: slowHome, env: { WHEELHOUSE_CLIENT_TOOL_TIMEOUT_MS: '300' } });
    try {
      const slowClient = new HttpApiClient(slow.port, slow.token);
      const call = (method: string, route: string, body?: unknown) => slowClient.call(method, route, body);
      const id = (await call('POST', '/threads', { cwd: slowHome, dynamic_tools: [reservationTool] })).body.thread.id as string;
      mock.enqueue(modelCallsTool('{"reservation_id":"LATE"}'), [{ type: 'text', text: 'It timed out.' }, { type: 'finish' }]);
      const before = mock.requests.length;
      const stream = await slowClient.subscribe(`/threads/${id}/events?since_seq=0`);
      await call('POST', `/threads/${id}/turns`, { input: 'check' });
      await stream.waitForEvent('tool_call.requested');
      const end = await stream.waitFor(isTurnEnd);
      expect((end.json as { payload: { turn: { status: string } } }).payload.turn.status).toBe('completed');
      expect(toolMessageIn(before + 1)).toMatch(/did not answer within 300 ms/);
      const late = await call('POST', `/threads/${id}/tool-calls/call_http`, { success: true, content: [] });
      expect(late.status).toBe(409);
      expect(late.body.error.message).toMatch(/timeout/);
      slowClient.closeStreams();
    } finally {
      await slow.stop();
    }
  });
});
