import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serverNotifications } from '../shared/protocol/registry.js';
import { HttpApiClient, writeMockModelConfig } from '../test-support/http-api-client.js';
import { createGate, startMockModelServer, type MockModelServer } from '../test-support/mock-model/index.js';
import { startServe, type ServeProcess } from '../test-support/serve-process.js';
import type { SseSubscriber } from '../test-support/sse-client.js';
import { TempDirs } from '../test-support/temp-dir.js';
import { launchChromium, requireBuilt } from './harness.js';

/**
 * The HTTP API's event stream read by Chromium's own EventSource, the client a
 * web page would use: token in the query (it cannot send headers), a turn
 * started over HTTP followed to its end, and a reconnect that resumes exactly
 * where the page left off. Each page stream is checked against a Node
 * subscriber that stayed connected the whole time.
 */

/**
 * EventSource delivers a named event only to a listener for that name, so the
 * page listens for every name the log can carry: the protocol's notifications
 * plus the HTTP-only ones. A name missing here shows up as a difference from
 * the reference stream, not as a silent pass.
 */
const EVENT_NAMES = [...Object.keys(serverNotifications), 'tool_call.requested', 'config/changed', 'turn/retrying', 'reset', 'cut'];

interface PageEvent {
  readonly id: number;
  readonly event: string;
  readonly seq: number;
  /** An agent message delta's text ('' for other events). */
  readonly delta: string;
}

const temp = new TempDirs();
let mock: MockModelServer;
let server: ServeProcess;
let client: HttpApiClient;
let browser: Browser;
let page: Page;
let home: string;

beforeAll(async () => {
  requireBuilt('dist/node/cli.js');
  mock = await startMockModelServer();
  home = temp.make('wheelhouse-sse-e2e-');
  writeMockModelConfig(home, mock.url);
  server = await startServe({ home });
  client = new HttpApiClient(server.port, server.token);
  browser = await launchChromium();
});

beforeEach(async () => {
  const context = await browser.newContext();
  page = await context.newPage();
  // Any same-origin page will do; the JSON info page runs no app code of its own.
  await page.goto(`http://127.0.0.1:${server.port}/v1/runtime/info`);
});

afterEach(async () => {
  client.closeStreams();
  await page?.context().close();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await mock?.close();
  temp.cleanup();
});

/** Opens `window.streams[name]`: an EventSource whose events (in arrival order) land in `window.received[name]`. */
async function openPageStream(name: string, url: string): Promise<void> {
  await page.evaluate(
    ({ name, url, eventNames }) => {
      const w = window as unknown as {
        streams?: Record<string, EventSource>;
        received?: Record<string, { id: number; event: string; seq: number; delta: string }[]>;
      };
      w.streams ??= {};
      w.received ??= {};
      const received: { id: number; event: string; seq: number; delta: string }[] = [];
      w.received[name] = received;
      const source = new EventSource(url);
      w.streams[name] = source;
      for (const eventName of eventNames) {
        source.addEventListener(eventName, (message) => {
          const data = JSON.parse(message.data) as { seq?: number; payload?: { delta?: unknown } };
          const delta = message.type === 'item/agentMessage/delta' && typeof data.payload?.delta === 'string' ? data.payload.delta : '';
          received.push({ id: Number(message.lastEventId), event: message.type, seq: data.seq ?? -1, delta });
        });
      }
      return new Promise<void>((resolve, reject) => {
        source.addEventListener('open', () => resolve(), { once: true });
        source.addEventListener('error', () => reject(new Error(`EventSource ${url} failed (readyState ${source.readyState})`)), { once: true });
      });
    },
    { name, url, eventNames: EVENT_NAMES },
  );
}

const pageEvents = (name: string): Promise<PageEvent[]> =>
  page.evaluate((name) => (window as unknown as { received: Record<string, PageEvent[]> }).received[name] ?? [], name);

/** Waits (no fixed sleep) until the page's stream has an event matching `event` (and past `afterSeq`). */
async function waitForPageEvent(name: string, event: string, afterSeq = 0): Promise<void> {
  await page.waitForFunction(
    ({ name, event, afterSeq }) =>
      ((window as unknown as { received: Record<string, { event: string; id: number }[]> }).received[name] ?? []).some(
        (e) => e.event === event && e.id > afterSeq,
      ),
    { name, event, afterSeq },
    { timeout: 30_000, polling: 50 },
  );
}

const closePageStream = (name: string): Promise<void> =>
  page.evaluate((name) => (window as unknown as { streams: Record<string, EventSource> }).streams[name]?.close(), name);

async function newThread(): Promise<string> {
  const created = await client.call('POST', '/threads', { cwd: home });
  expect(created.status).toBe(201);
  return created.body.thread.id as string;
}

async function startTurn(threadId: string, text: string): Promise<string> {
  const started = await client.call('POST', `/threads/${threadId}/turns`, { input: text });
  expect(started.status).toBe(201);
  return started.body.turn.id as string;
}

/**
 * The reference: the thread's logged events up to the turn's end, from a
 * subscriber that never disconnects. (A status change may follow
 * turn/completed at any moment, so streams are compared up to it.)
 */
function referenceEvents(reference: SseSubscriber): { id: number; event: string }[] {
  return upToTurnEnd(reference.events.filter((e) => e.id !== undefined).map((e) => ({ id: e.id!, event: e.event })));
}

function upToTurnEnd<T extends { event: string }>(events: readonly T[]): T[] {
  const end = events.findIndex((e) => e.event === 'turn/completed');
  if (end < 0) throw new Error(`no turn/completed in ${events.map((e) => e.event).join(', ')}`);
  return events.slice(0, end + 1);
}

const streamUrl = (threadId: string, sinceSeq: number): string =>
  `/v1/threads/${threadId}/events?since_seq=${sinceSeq}&token=${encodeURIComponent(server.token)}`;

describe('SSE in the browser (EventSource)', () => {
  it('follows a turn started over HTTP, in order, through to turn/completed', async () => {
    const threadId = await newThread();
    const reference = await client.subscribe(`/threads/${threadId}/events?since_seq=0`);
    await openPageStream('main', streamUrl(threadId, 0));

    mock.enqueue([{ type: 'text', text: 'Hello ' }, { type: 'text', text: 'from the mock model.' }, { type: 'finish' }]);
    const turnId = await startTurn(threadId, 'Say hello');
    await waitForPageEvent('main', 'turn/completed');
    await reference.waitForEvent('turn/completed');

    const received = upToTurnEnd(await pageEvents('main'));
    // The replay from seq 0 includes the thread's creation; then the turn, in log order.
    expect(received[0]?.event).toBe('thread/started');
    const names = received.map((e) => e.event);
    expect(names.indexOf('turn/started')).toBeGreaterThan(0);
    expect(names.indexOf('item/agentMessage/delta')).toBeGreaterThan(names.indexOf('turn/started'));
    expect(received.map((e) => e.delta).join('')).toBe('Hello from the mock model.');
    // lastEventId is the envelope's seq, strictly increasing: nothing duplicated, nothing reordered.
    for (const event of received) expect(event.id).toBe(event.seq);
    for (let i = 1; i < received.length; i++) expect(received[i]!.id).toBeGreaterThan(received[i - 1]!.id);
    // Exactly what a header-authenticated subscriber saw.
    expect(received.map(({ id, event }) => ({ id, event }))).toEqual(referenceEvents(reference));
    const completed = reference.events.find((e) => e.event === 'turn/completed');
    expect(completed?.json).toMatchObject({ turn_id: turnId });
  });

  it('a reconnect with since_seq = the last seen id gets exactly the events it missed', async () => {
    const threadId = await newThread();
    const reference = await client.subscribe(`/threads/${threadId}/events?since_seq=0`);
    await openPageStream('first', streamUrl(threadId, 0));

    const gate = createGate();
    mock.enqueue([
      { type: 'text', text: 'Before the break. ' },
      { type: 'waitFor', release: gate.promise },
      { type: 'text', text: 'After the break.' },
      { type: 'finish' },
    ]);
    await startTurn(threadId, 'Talk through a disconnect');
    await waitForPageEvent('first', 'item/agentMessage/delta');
    await closePageStream('first');
    const beforeBreak = await pageEvents('first');
    const lastSeen = beforeBreak.at(-1)!.id;

    // The turn goes on while the page is away.
    gate.release();
    await reference.waitForEvent('turn/completed');

    await openPageStream('second', streamUrl(threadId, lastSeen));
    await waitForPageEvent('second', 'turn/completed');
    const afterBreak = upToTurnEnd(await pageEvents('second'));

    const all = referenceEvents(reference);
    expect(afterBreak.map(({ id, event }) => ({ id, event }))).toEqual(all.filter((e) => e.id > lastSeen));
    expect(afterBreak.length).toBeGreaterThan(0);
    expect(afterBreak[0]!.id).toBeGreaterThan(lastSeen);
    // The first stream stopped receiving when closed, and the two together are the whole thread.
    expect(await pageEvents('first')).toEqual(beforeBreak);
    expect([...beforeBreak, ...afterBreak].map(({ id, event }) => ({ id, event }))).toEqual(all);
    expect(beforeBreak.map((e) => e.delta).join('')).toBe('Before the break. ');
    expect(afterBreak.map((e) => e.delta).join('')).toBe('After the break.');
  });
});
