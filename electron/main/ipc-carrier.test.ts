import { afterEach, describe, expect, it } from 'vitest';
import { IPC_CHANNELS } from '../../shared/ipc.js';
import { ErrorCode } from '../../shared/protocol/index.js';
import { MessageInbox } from '../../test-support/message-inbox.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { createTestRuntime } from '../../test-support/test-runtime.js';
import { RpcHost } from '../server/rpc-host.js';
import { IpcCarrier, type RendererEndpoint } from './ipc-carrier.js';

const temp = new TempDirs();
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  temp.cleanup();
});

const APP_FRAME = { url: 'app://wheelhouse/index.html', isMainFrame: true };

/** A renderer as the carrier sees it: Electron's webContents reduced to id, send and isDestroyed. */
class Renderer implements RendererEndpoint {
  inbox = new MessageInbox();
  readonly channels = new Set<string>();
  destroyed = false;
  constructor(readonly id: number) {}
  send(channel: string, text: string): void {
    this.channels.add(channel);
    this.inbox.push(text);
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  /** A fresh page in the same webContents (reload): new inbox, same id. */
  reload(): void {
    this.inbox = new MessageInbox();
  }
}

/** A real runtime on a temp home behind a real RpcHost, with the carrier under test. */
function setup() {
  const home = temp.make();
  const errors: unknown[] = [];
  const runtime = createTestRuntime({ home, defaults: { cwd: home }, logError: (_m, e) => errors.push(e) });
  const host = new RpcHost(runtime);
  let windowId: number | null = 1;
  const carrier = new IpcCarrier(host, () => windowId, (_m, e) => errors.push(e));
  cleanups.push(() => {
    carrier.close();
    host.close();
    runtime.close();
  });
  const renderer = new Renderer(1);
  const send = (from: Renderer, payload: unknown, frame: typeof APP_FRAME | null = APP_FRAME) =>
    carrier.receive({ endpoint: from, frame, payload });
  const initialize = async (from: Renderer, id = 1) => {
    expect(send(from, JSON.stringify({ id, method: 'initialize', params: { clientInfo: { name: 'wheelhouse-ui', version: '0' } } }))).toEqual({ accepted: true });
    return from.inbox.response(id);
  };
  return { host, carrier, renderer, send, initialize, errors, closeWindow: () => (windowId = null) };
}

describe('IPC carrier', () => {
  it('runs a protocol session for the window: responses and notifications come back on the renderer channel', async () => {
    const { renderer, send, initialize, host, errors } = setup();
    const init = await initialize(renderer);
    expect(init).toMatchObject({ id: 1, result: { serverVersion: expect.any(String) } });

    expect(send(renderer, JSON.stringify({ id: 2, method: 'thread/start', params: {} }))).toEqual({ accepted: true });
    const started = await renderer.inbox.response(2);
    expect(started).toMatchObject({ id: 2, result: { thread: { id: expect.any(String) } } });
    const notification = await renderer.inbox.notification('thread/started');
    expect(notification.seq).toEqual(expect.any(Number));
    expect([...renderer.channels]).toEqual([IPC_CHANNELS.toRenderer]);
    expect(host.connectionCount).toBe(1);
    expect(renderer.inbox.garbage).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('drops messages from other webContents, iframes, foreign pages and vanished frames', async () => {
    const { renderer, send, host } = setup();
    const stranger = new Renderer(2);
    const request = JSON.stringify({ id: 1, method: 'initialize', params: { clientInfo: { name: 'x', version: '0' } } });
    expect(send(stranger, request)).toEqual({ accepted: false, reason: 'untrusted-sender' });
    expect(send(renderer, request, { ...APP_FRAME, isMainFrame: false })).toEqual({ accepted: false, reason: 'untrusted-sender' });
    expect(send(renderer, request, { url: 'https://evil.example/', isMainFrame: true })).toEqual({ accepted: false, reason: 'untrusted-sender' });
    expect(send(renderer, request, null)).toEqual({ accepted: false, reason: 'untrusted-sender' });
    expect(host.connectionCount).toBe(0);
    expect(stranger.channels.size + renderer.channels.size).toBe(0);
  });

  it('drops payloads that are not protocol text', () => {
    const { renderer, send, host } = setup();
    for (const payload of [{ id: 1, method: 'initialize' }, 42, null, undefined, new Uint8Array([1])]) {
      expect(send(renderer, payload)).toEqual({ accepted: false, reason: 'not-a-string' });
    }
    expect(host.connectionCount).toBe(0);
  });

  it('answers malformed text with a protocol error, like every carrier', async () => {
    const { renderer, send } = setup();
    expect(send(renderer, '{not json')).toEqual({ accepted: true });
    expect(await renderer.inbox.response(null)).toMatchObject({ error: { code: ErrorCode.ParseError } });
  });

  it('gives a reloaded page a fresh session that must initialize again', async () => {
    const { renderer, send, initialize, carrier, host } = setup();
    await initialize(renderer);
    carrier.end(renderer.id); // main does this on did-start-navigation / render-process-gone / destroyed
    expect(host.connectionCount).toBe(0);
    renderer.reload();

    expect(send(renderer, JSON.stringify({ id: 7, method: 'thread/list', params: {} }))).toEqual({ accepted: true });
    expect(await renderer.inbox.response(7)).toMatchObject({ error: { code: ErrorCode.InvalidRequest, message: expect.stringMatching(/initialize/) } });
    expect(await initialize(renderer, 8)).toMatchObject({ id: 8, result: expect.any(Object) });
    expect(host.connectionCount).toBe(1);
  });

  it('moves to a restarted runtime: the old session ends and the page starts a fresh one there', async () => {
    const { renderer, initialize, carrier, host } = setup();
    await initialize(renderer);
    const home = temp.make();
    const restarted = createTestRuntime({ home, defaults: { cwd: home } });
    const next = new RpcHost(restarted);
    cleanups.push(() => {
      next.close();
      restarted.close();
    });
    carrier.replaceHost(next);
    expect(host.connectionCount).toBe(0);
    renderer.reload();
    expect(await initialize(renderer, 9)).toMatchObject({ id: 9, result: { wheelhouseHome: home } });
    expect(next.connectionCount).toBe(1);
  });

  it('never writes to a destroyed renderer, and other clients carry on', async () => {
    const { renderer, initialize, host, carrier, errors } = setup();
    await initialize(renderer);
    renderer.destroyed = true;

    const other = new MessageInbox();
    const connection = host.connect('in-process', { send: (text) => other.push(text) });
    await connection.receive(JSON.stringify({ id: 1, method: 'initialize', params: { clientInfo: { name: 'cli', version: '0' } } }));
    await connection.receive(JSON.stringify({ id: 2, method: 'thread/start', params: {} }));
    expect(await other.response(2)).toMatchObject({ result: { thread: expect.any(Object) } });
    await other.notification('thread/started');

    expect(renderer.inbox.drainNotifications()).toEqual([]);
    carrier.end(renderer.id); // main does this on 'destroyed'
    expect(host.connectionCount).toBe(1);
    expect(errors).toEqual([]);
  });

  it('refuses messages once the window is gone and everything after close', () => {
    const { renderer, send, carrier, closeWindow, host } = setup();
    closeWindow();
    expect(send(renderer, '{}')).toEqual({ accepted: false, reason: 'untrusted-sender' });
    carrier.close();
    expect(send(renderer, '{}')).toEqual({ accepted: false, reason: 'carrier-closed' });
    expect(host.connectionCount).toBe(0);
  });
});
