import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { InitializeResult } from '../../../shared/protocol/methods/initialize.js';
import type { ClosableTransport } from './websocket-transport.js';
import { WheelhouseClient } from './wheelhouse-client.js';
import { waitUntil } from '../../../test-support/waiting.js';

const server: InitializeResult = {
  userAgent: 'wheelhouse/0.0.0 (test)',
  codexHome: '/home',
  wheelhouseHome: '/home',
  platformFamily: 'unix',
  platformOs: 'linux',
  codexProtocolVersion: '0.169.0',
  serverVersion: '0.0.0',
};

/** A runtime that answers `initialize` and can close the link with a reason, as `wheelhouse serve` does on shutdown. */
function answeringTransport(): ClosableTransport & { closeWith(reason: string): void } {
  const messageListeners = new Set<(text: string) => void>();
  const closeListeners = new Set<(reason: string) => void>();
  return {
    send(text) {
      const message = JSON.parse(text) as { id?: number; method?: string };
      if (message.method === 'initialize' && message.id !== undefined) {
        const reply = JSON.stringify({ id: message.id, result: server });
        queueMicrotask(() => messageListeners.forEach((listener) => listener(reply)));
      }
    },
    onMessage(listener) {
      messageListeners.add(listener);
      return () => messageListeners.delete(listener);
    },
    onClose(listener) {
      closeListeners.add(listener);
      return () => closeListeners.delete(listener);
    },
    close() {},
    closeWith(reason) {
      closeListeners.forEach((listener) => listener(reason));
    },
  };
}

describe('WheelhouseClient while the runtime is away', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps saying why the server closed while it cannot be reached, and forgets it once back', async () => {
    let transport = answeringTransport();
    let reachable = true;
    const client = new WheelhouseClient({
      connector: () => (reachable ? Promise.resolve(transport) : Promise.reject(new Error('Can’t reach the runtime.'))),
      reconnect: true,
      clientVersion: '0.0.0',
    });
    client.start();
    await waitUntil(() => client.getSnapshot().status === 'connected', { what: 'the client to connect' });

    reachable = false;
    transport.closeWith('Wheelhouse stopped (Ctrl+C in its terminal).');
    expect(client.getSnapshot()).toMatchObject({ status: 'reconnecting', error: 'Wheelhouse stopped (Ctrl+C in its terminal).' });
    // Several failed attempts later it still says why, not merely that it cannot reach it.
    for (let i = 0; i < 3; i++) await vi.advanceTimersToNextTimerAsync();
    expect(client.getSnapshot()).toMatchObject({ status: 'reconnecting', error: 'Wheelhouse stopped (Ctrl+C in its terminal).' });

    reachable = true;
    transport = answeringTransport();
    await vi.advanceTimersToNextTimerAsync();
    await waitUntil(() => client.getSnapshot().status === 'connected' && client.getSnapshot().error === null, { what: 'the client to connect without an error' });

    // A link that drops without a reason afterwards is just "lost": the old reason is gone.
    reachable = false;
    transport.closeWith('code 1006');
    expect(client.getSnapshot().error).toBe('Connection lost');
    await vi.advanceTimersToNextTimerAsync();
    expect(client.getSnapshot().error).toBe('Can’t reach the runtime.');
    client.stop();
  });
});
