import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Notice } from '../../../shared/notices.js';
import { RpcHost } from '../../../electron/server/rpc-host.js';
import { createTestRuntime } from '../../../test-support/test-runtime.js';
import type { ClosableTransport } from '../client/websocket-transport.js';
import { WheelhouseClient } from '../client/wheelhouse-client.js';
import { watchApprovalNotices } from './approval-notices.js';
import { createApprovalsStore } from './approvals-store.js';

/**
 * Approval notices of windows on one real runtime (in-memory links a test
 * can cut): a request that starts waiting is told once; what the runtime
 * sends again after a reconnect, and what was waiting before a window
 * opened, is not.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'wh-approval-notices-'));
  const runtime = createTestRuntime({ home, defaults: { cwd: home } });
  const host = new RpcHost(runtime);
  cleanups.push(async () => {
    host.close();
    await runtime.shutdown();
    fs.rmSync(home, { recursive: true, force: true });
  });

  /** Asks the person to approve `command`, as a turn's command would; returns the turn's stop. */
  const ask = (itemId: string, command: string) => {
    const turn = new AbortController();
    void runtime.approvals.request({ store: null, ephemeral: true }, { threadId: 'thread-1', turnId: 'turn-1', itemId, startedAtMs: Date.now(), command }, turn.signal);
    cleanups.push(() => turn.abort());
  };

  const openWindow = () => {
    let cut: () => void = () => undefined;
    const connector = async (): Promise<ClosableTransport> => {
      const messages = new Set<(text: string) => void>();
      const closes = new Set<(reason: string) => void>();
      let open = true;
      const connection = host.connect('in-process', { send: (text) => queueMicrotask(() => open && messages.forEach((listener) => listener(text))) });
      cut = () => {
        if (!open) return;
        open = false;
        host.disconnect(connection);
        closes.forEach((listener) => listener('cut'));
      };
      return {
        send: (text) => void (open && connection.receive(text)),
        onMessage: (listener) => (messages.add(listener), () => messages.delete(listener)),
        onClose: (listener) => (closes.add(listener), () => closes.delete(listener)),
        close: () => cut(),
      };
    };
    const client = new WheelhouseClient({ connector, reconnect: true, clientVersion: 'test' });
    const store = createApprovalsStore(client);
    const notices: Notice[] = [];
    const withdrawn: string[] = [];
    const waiters = new Set<() => void>();
    const stop = watchApprovalNotices(client, {
      subscribe: (listener) => store.subscribe((state, previous) => void (state.pending !== previous.pending && listener(state.pending))),
      deliver: (notice) => {
        notices.push(notice);
        for (const wake of waiters) wake();
      },
      withdraw: (requestId) => void withdrawn.push(requestId),
      threadName: (threadId) => (threadId === 'thread-1' ? 'Fix the build' : null),
    });
    client.start();
    cleanups.push(() => {
      stop();
      client.stop();
    });
    /** Resolves once `check` holds after a change of the window's requests or notices. */
    const until = (what: string, check: () => boolean) =>
      new Promise<void>((resolve, reject) => {
        if (check()) return resolve();
        const timer = setTimeout(() => reject(new Error(`never happened: ${what}`)), 20_000);
        const wake = () => {
          if (!check()) return;
          clearTimeout(timer);
          waiters.delete(wake);
          off();
          resolve();
        };
        waiters.add(wake);
        const off = store.subscribe(wake);
        const offStatus = client.onStatus(wake);
        cleanups.push(offStatus);
      });
    /** Waits until the window has loaded what was already waiting (its approval/list came back). */
    const settled = async (waiting: number) => {
      await until('connected', () => client.getSnapshot().status === 'connected');
      await until(`${waiting} waiting`, () => store.getState().pending.length === waiting);
      // The baseline is the window's own approval/list: one more round trip makes sure it has come back.
      await client.request('approval/list', {});
    };
    return { client, store, notices, withdrawn, until, settled, cut: () => cut() };
  };
  return { ask, openWindow };
}

describe('approval notices', () => {
  it('tell once when a request starts waiting, with the thread it comes from', async () => {
    const { ask, openWindow } = setup();
    const window = openWindow();
    await window.settled(0);
    ask('item-1', 'npm test');
    await window.until('the notice', () => window.notices.length === 1);
    expect(window.notices[0]).toMatchObject({ kind: 'approvalNeeded', title: 'Approve a command? (Fix the build)', body: 'npm test', approval: { canApprove: true } });
  });

  it('stay quiet for what the runtime sends again after a reconnect, and tell what is new after it', async () => {
    const { ask, openWindow } = setup();
    const window = openWindow();
    await window.settled(0);
    ask('item-1', 'npm test');
    await window.until('the first notice', () => window.notices.length === 1);

    window.cut();
    await window.until('dropped', () => window.client.getSnapshot().status !== 'connected');
    await window.settled(1);
    expect(window.notices).toHaveLength(1);

    ask('item-2', 'npm run lint');
    await window.until('the second notice', () => window.notices.length === 2);
    expect(window.notices.map((notice) => notice.body)).toEqual(['npm test', 'npm run lint']);
    // The dropped connection emptied the list for a moment, but nothing was answered.
    expect(window.withdrawn).toEqual([]);
  });

  it('withdraw the notice once its request is answered', async () => {
    const { ask, openWindow } = setup();
    const window = openWindow();
    await window.settled(0);
    ask('item-1', 'npm test');
    await window.until('the notice', () => window.notices.length === 1);
    const [request] = window.store.getState().pending;
    if (!request) throw new Error('no request waiting');
    window.store.getState().answerCommand(request.requestId, 'accept');
    await window.until('answered', () => window.store.getState().pending.length === 0);
    expect(window.withdrawn).toEqual([request.requestId]);
    expect(window.notices[0]?.approval?.requestId).toBe(request.requestId);
  });

  it('stay quiet for what was already waiting when a window opens (a reload)', async () => {
    const { ask, openWindow } = setup();
    ask('item-1', 'make deploy');
    const window = openWindow();
    await window.settled(1);
    expect(window.notices).toEqual([]);
  });
});
