import { describe, expect, it } from 'vitest';
import { HttpApiClient, useServedHome, type HttpAnswer } from '../../../test-support/http-api-client.js';
import { createGate, type MockModelServer } from '../../../test-support/mock-model/index.js';
import { type ServeProcess } from '../../../test-support/serve-process.js';
import { SseSubscriber, type SseEvent } from '../../../test-support/sse-client.js';

/** The HTTP API of a real `wheelhouse serve` process, driven over HTTP and SSE only. */
let mock: MockModelServer;
let server: ServeProcess;
let client: HttpApiClient;
let home: string;
useServedHome('wheelhouse-http-', (parts) => ({ mock, server, client, home } = parts));

const api = (method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer> =>
  client.call(method, route, body, headers);
const subscribe = (route: string, headers?: Record<string, string>) => client.subscribe(route, headers);

async function newThread(): Promise<{ id: string; latestSeq: number }> {
  const created = await api('POST', '/threads', { cwd: home });
  expect(created.status).toBe(201);
  const read = await api('GET', `/threads/${created.body.thread.id}`);
  return { id: created.body.thread.id, latestSeq: read.body.latest_seq };
}

const isTurnEnd = (e: SseEvent) => e.event === 'turn/completed';
const seqs = (events: readonly SseEvent[]) => events.filter((e) => e.id !== undefined).map((e) => e.id);

describe('HTTP API: info and auth', () => {
  it('GET /v1/runtime/info is public and has the seed 004 shape', async () => {
    const info = await fetch(`http://127.0.0.1:${server.port}/v1/runtime/info`);
    expect(info.status).toBe(200);
    const body = await info.json();
    expect(body).toMatchObject({
      service: 'wheelhouse',
      runtime_api_version: '1.0',
      version: expect.any(String),
      bind: { host: '127.0.0.1', port: server.port },
      auth_required: true,
      experimental: { environments: false },
    });
    expect(body.transports).toEqual(expect.arrayContaining(['http', 'sse', 'websocket']));
    expect(body.capabilities).toEqual({
      threads: true,
      turns: true,
      turn_steer: true,
      turn_interrupt: true,
      event_replay: true,
      external_tools: true,
      environments: false,
      worker_runtime: false,
    });
  });

  it('needs the token as Bearer or X-Wheelhouse-Runtime-Token; refuses none or a wrong one with a JSON 401', async () => {
    const none = await api('GET', '/threads', undefined, { authorization: '' });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');
    expect(none.body.error.message).toMatch(/token/);
    expect((await api('GET', '/threads', undefined, { authorization: `Bearer ${server.token}x` })).status).toBe(401);
    expect((await api('GET', '/threads', undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
    const byHeader = await api('GET', '/threads', undefined, { authorization: '', 'x-wheelhouse-runtime-token': server.token });
    expect(byHeader.status).toBe(200);
    // The scheme is case-insensitive (RFC 9110).
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      expect((await api('GET', '/threads', undefined, { authorization: `${scheme} ${server.token}` })).status).toBe(200);
    }
    expect((await api('GET', '/threads', undefined, { authorization: `bearer wrong` })).status).toBe(401);
    await expect(SseSubscriber.open(`http://127.0.0.1:${server.port}/v1/events`)).rejects.toThrow(/401/);
  });

  it('takes ?token= on the event streams only (an EventSource cannot send headers), never echoing it', async () => {
    const base = `http://127.0.0.1:${server.port}/v1`;
    const { id } = await newThread();
    const all = await SseSubscriber.open(`${base}/events?token=${encodeURIComponent(server.token)}`);
    const one = await SseSubscriber.open(`${base}/threads/${id}/events?since_seq=0&token=${encodeURIComponent(server.token)}`);
    await one.waitFor((e) => e.event === 'thread/started');
    all.close();
    one.close();

    const wrong = `${server.token.slice(0, -1)}${server.token.endsWith('x') ? 'y' : 'x'}`;
    await expect(SseSubscriber.open(`${base}/events?token=${wrong}`)).rejects.toThrow(/401.*wrong token/);
    await expect(SseSubscriber.open(`${base}/events?token=short`)).rejects.toThrow(/401/);
    // Every other endpoint ignores the query: the token stays out of URLs that are not streams.
    const listed = await fetch(`${base}/threads?token=${encodeURIComponent(server.token)}`);
    expect(listed.status).toBe(401);
    const refusal = await listed.text();
    expect(refusal).not.toContain(server.token);
    const wrongAnswer = await fetch(`${base}/events?token=${wrong}`);
    expect(await wrongAnswer.text()).not.toContain(wrong);
  });

  it('answers no cross-origin request and sends no CORS headers', async () => {
    const foreign = await api('GET', '/threads', undefined, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await api('OPTIONS', '/threads', undefined, { origin: 'https://evil.example' });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('HTTP API: threads', () => {
  it('creates, reads, renames, archives and forks a thread in snake_case', async () => {
    const created = await api('POST', '/threads', { cwd: home, ephemeral: false });
    expect(created.status).toBe(201);
    const thread = created.body.thread;
    expect(thread).toMatchObject({ cwd: home, model_provider: 'mock', ephemeral: false, archived: false });
    expect(thread.modelProvider).toBeUndefined();

    const read = await api('GET', `/threads/${thread.id}`);
    expect(read.status).toBe(200);
    expect(read.body.thread.id).toBe(thread.id);
    expect(read.body.latest_seq).toBeGreaterThan(0);

    const listed = await api('GET', '/threads');
    expect(listed.body.data.map((t: { id: string }) => t.id)).toContain(thread.id);
    expect(listed.body).toHaveProperty('next_cursor');

    const patched = await api('PATCH', `/threads/${thread.id}`, { name: 'Renamed', archived: true });
    expect(patched.status).toBe(200);
    expect(patched.body.thread).toMatchObject({ name: 'Renamed', archived: true });
    const archived = await api('GET', '/threads?archived=true');
    expect(archived.body.data.map((t: { id: string }) => t.id)).toContain(thread.id);
    expect((await api('PATCH', `/threads/${thread.id}`, { archived: false })).body.thread.archived).toBe(false);

    const fork = await api('POST', `/threads/${thread.id}/fork`, {});
    expect(fork.status).toBe(201);
    expect(fork.body.thread.id).not.toBe(thread.id);
    expect(fork.body.thread.forked_from_id).toBe(thread.id);
  });

  it('refuses bad JSON, unknown fields and bad values with 400 naming the problem, changing nothing', async () => {
    const before = (await api('GET', '/threads')).body.data.length;
    const badJson = await api('POST', '/threads', '{"cwd": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body.error.code).toBe('invalid_json');
    const unknown = await api('POST', '/threads', { cwd: home, colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/colour/);
    const wrongType = await api('POST', '/threads', { ephemeral: 'yes' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.message).toMatch(/ephemeral/);
    expect((await api('GET', '/threads')).body.data.length).toBe(before);

    const { id } = await newThread();
    await api('PATCH', `/threads/${id}`, { name: 'Kept' });
    const blank = await api('PATCH', `/threads/${id}`, { name: '   ', archived: true });
    expect(blank.status).toBe(400);
    expect(blank.body.error.message).toMatch(/name/);
    expect((await api('GET', `/threads/${id}`)).body.thread).toMatchObject({ name: 'Kept', archived: false });
    expect((await api('GET', '/threads?limit=zero')).status).toBe(400);

    const requestsBefore = mock.requests.length;
    for (const bad of [{ input: 'hi', temperature: 2 }, { input: 42 }, {}, { input: 'hi', environment: { environment_id: 'mars', cwd: home } }]) {
      const refused = await api('POST', `/threads/${id}/turns`, bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.error.code).toBe('invalid_params');
    }
    expect((await api('POST', `/threads/${id}/turns`, { input: 'hi' }, { 'idempotency-key': 'x'.repeat(201) })).status).toBe(400);
    expect((await api('GET', `/threads/${id}`)).body.thread.turns).toHaveLength(0);
    expect(mock.requests.length).toBe(requestsBefore);
  });

  it('answers 404 for an unknown thread or endpoint and 405 for a wrong method', async () => {
    const missing = await api('GET', '/threads/no-such-thread');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toEqual({ code: 'not_found', message: expect.stringMatching(/no-such-thread/) });
    expect((await api('POST', '/threads/no-such-thread/turns', { input: 'hi' })).status).toBe(404);
    expect((await api('GET', '/nothing-here')).status).toBe(404);
    expect((await api('DELETE', '/threads')).status).toBe(405);
  });
});

describe('HTTP API: turns and SSE', () => {
  it('runs a turn started over HTTP, followed over SSE to its end', async () => {
    const { id, latestSeq } = await newThread();
    mock.enqueue([{ type: 'text', text: 'Hello over HTTP.' }, { type: 'finish' }]);
    const stream = await subscribe(`/threads/${id}/events?since_seq=${latestSeq}`);
    const started = await api('POST', `/threads/${id}/turns`, { input: 'hi' });
    expect(started.status).toBe(201);
    expect(started.body.thread.id).toBe(id);
    // Keys are snake_case; values (enums like inProgress) stay as the runtime names them.
    expect(started.body.turn).toMatchObject({ id: expect.any(String), status: 'inProgress' });

    const end = await stream.waitFor(isTurnEnd);
    const envelope = end.json as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(envelope).toMatchObject({
      schema_version: 1,
      seq: end.id,
      event: 'turn/completed',
      kind: 'turn',
      thread_id: id,
      turn_id: started.body.turn.id,
      payload: { thread_id: id, turn: { id: started.body.turn.id, status: 'completed' } },
    });
    expect(new Date(envelope.timestamp).toISOString()).toBe(envelope.timestamp);
    const text = stream.events
      .filter((e) => e.event === 'item/agentMessage/delta')
      .map((e) => (e.json as { payload: { delta: string } }).payload.delta)
      .join('');
    expect(text).toBe('Hello over HTTP.');
    const ids = seqs(stream.events);
    expect(ids[0]).toBeGreaterThan(latestSeq);
    expect([...ids].sort((a, b) => a! - b!)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(stream.events.every((e) => e.id === undefined || (e.json as { thread_id: string }).thread_id === id)).toBe(true);
  });

  it('a reconnect with Last-Event-ID mid-turn gets exactly the events it missed', async () => {
    const { id, latestSeq } = await newThread();
    const firstGate = createGate();
    const secondGate = createGate();
    mock.enqueue([
      { type: 'text', text: 'one ' },
      { type: 'waitFor', release: firstGate.promise },
      { type: 'text', text: 'two ' },
      { type: 'waitFor', release: secondGate.promise },
      { type: 'text', text: 'three' },
      { type: 'finish' },
    ]);
    const whole = await subscribe(`/threads/${id}/events?since_seq=${latestSeq}`);
    const dropped = await subscribe(`/threads/${id}/events?since_seq=${latestSeq}`);
    await api('POST', `/threads/${id}/turns`, { input: 'count' });
    const delta = (text: string) => (e: SseEvent) => e.event === 'item/agentMessage/delta' && e.data.includes(`"${text}"`);
    await dropped.waitFor(delta('one '));
    dropped.close();
    const lastId = dropped.events.at(-1)!.id!;

    // Events happen while it is away; it comes back in the middle of the turn.
    firstGate.release();
    await whole.waitFor(delta('two '));
    const resumed = await subscribe(`/threads/${id}/events?since_seq=${latestSeq}`, { 'last-event-id': String(lastId) });
    await resumed.waitFor(delta('two '));
    secondGate.release();
    await whole.waitFor(isTurnEnd);
    await resumed.waitFor(isTurnEnd);

    const upToEnd = (events: readonly SseEvent[]) => events.slice(0, events.findIndex(isTurnEnd) + 1);
    const joined = [...dropped.events, ...upToEnd(resumed.events)].filter((e) => e.id !== undefined);
    expect(seqs(joined)).toEqual(seqs(upToEnd(whole.events)));
    expect(joined.map((e) => e.data)).toEqual(upToEnd(whole.events).map((e) => e.data));
  });

  it('a retried POST with the same Idempotency-Key returns the first turn and starts no second one', async () => {
    const { id } = await newThread();
    const gate = createGate();
    mock.enqueue([{ type: 'waitFor', release: gate.promise }, { type: 'text', text: 'once' }, { type: 'finish' }]);
    const requestsBefore = mock.requests.length;
    const [a, b] = await Promise.all([
      api('POST', `/threads/${id}/turns`, { input: 'do it' }, { 'idempotency-key': 'retry-1' }),
      api('POST', `/threads/${id}/turns`, { input: 'do it' }, { 'idempotency-key': 'retry-1' }),
    ]);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.turn.id).toBe(a.body.turn.id);
    const stream = await subscribe(`/threads/${id}/events?since_seq=0`);
    gate.release();
    await stream.waitFor(isTurnEnd);
    const again = await api('POST', `/threads/${id}/turns`, { input: 'do it', idempotency_key: 'retry-1' });
    expect(again.status).toBe(201);
    expect(again.body.turn.id).toBe(a.body.turn.id);
    expect(mock.requests.length - requestsBefore).toBe(1);
    expect((await api('GET', `/threads/${id}`)).body.thread.turns).toHaveLength(1);

    // The same key with another body is the client's mistake: refused, naming the key, and nothing starts.
    const reused = await api('POST', `/threads/${id}/turns`, { input: 'do something else' }, { 'idempotency-key': 'retry-1' });
    expect(reused.status).toBe(422);
    expect(reused.body.error).toEqual({ code: 'idempotency_key_reused', message: expect.stringContaining('"retry-1"') });
    expect(mock.requests.length - requestsBefore).toBe(1);
    expect((await api('GET', `/threads/${id}`)).body.thread.turns).toHaveLength(1);
  });

  it('steers and interrupts a running turn; refuses a second turn and empty input', async () => {
    const { id, latestSeq } = await newThread();
    mock.enqueue([{ type: 'text', text: 'Working' }, { type: 'stall' }]);
    const stream = await subscribe(`/threads/${id}/events?since_seq=${latestSeq}`);
    const { body } = await api('POST', `/threads/${id}/turns`, { input: [{ type: 'text', text: 'long job' }] });
    const turnId = body.turn.id as string;
    await stream.waitForEvent('item/agentMessage/delta');

    const second = await api('POST', `/threads/${id}/turns`, { input: 'another' });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('conflict');
    const empty = await api('POST', `/threads/${id}/turns/${turnId}/steer`, { input: '' });
    expect(empty.status).toBe(400);
    const wrongTurn = await api('POST', `/threads/${id}/turns/not-this-one/steer`, { input: 'x' });
    expect(wrongTurn.status).toBe(409);
    const steer = await api('POST', `/threads/${id}/turns/${turnId}/steer`, { input: 'also this' });
    expect(steer.status).toBe(200);
    expect(steer.body).toEqual({ turn_id: turnId });

    const stopped = await api('POST', `/threads/${id}/turns/${turnId}/interrupt`);
    expect(stopped.status).toBe(200);
    const end = await stream.waitFor(isTurnEnd);
    expect((end.json as { payload: { turn: { status: string } } }).payload.turn.status).toBe('interrupted');
  });

  it('GET /v1/events carries every thread; a since_seq the log cannot satisfy gets a reset event', async () => {
    const a = await newThread();
    const b = await newThread();
    const all = await subscribe(`/events?since_seq=${a.latestSeq}`);
    const seen = await all.waitFor((e) => e.event === 'thread/started' && (e.json as { thread_id: string | null; payload: { thread: { id: string } } }).payload.thread.id === b.id);
    expect(seen.id).toBeGreaterThan(a.latestSeq);

    const future = await subscribe(`/events?since_seq=${b.latestSeq + 1_000_000}`);
    const reset = await future.waitForEvent('reset');
    expect(reset.json).toMatchObject({ since_seq: b.latestSeq + 1_000_000, latest_seq: expect.any(Number) });
    expect((await api('GET', '/events?since_seq=-1')).status).toBe(400);
  });
});
