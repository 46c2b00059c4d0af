import type { Transport } from '../../../shared/protocol/client.js';

/** A transport the client can close itself (to abandon a half-open connection). */
export interface ClosableTransport extends Transport {
  close(): void;
}

/** How long a connection may stay half-open before it counts as failed (the next attempt then starts). */
const CONNECT_TIMEOUT_MS = 8_000;

/** Opens a WebSocket and resolves once it is open; rejects if it closes first or does not open in time. */
export function openWebSocketTransport(url: string, connectTimeoutMs = CONNECT_TIMEOUT_MS): Promise<ClosableTransport> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const messageListeners = new Set<(text: string) => void>();
    const closeListeners = new Set<(reason: string) => void>();
    let opened = false;
    // A handshake left hanging (a server going away mid-accept) would otherwise stall every reconnect.
    const timer = setTimeout(() => {
      reject(new Error('Can’t reach the runtime. Is wheelhouse serve still running?'));
      socket.close();
    }, connectTimeoutMs);

    socket.addEventListener('open', () => {
      clearTimeout(timer);
      opened = true;
      resolve({
        send: (text) => socket.send(text),
        onMessage: (listener) => {
          messageListeners.add(listener);
          return () => messageListeners.delete(listener);
        },
        onClose: (listener) => {
          closeListeners.add(listener);
          return () => closeListeners.delete(listener);
        },
        close: () => socket.close(1000, 'client closed'),
      });
    });
    socket.addEventListener('message', (event) => {
      if (typeof event.data !== 'string') return;
      for (const listener of messageListeners) listener(event.data);
    });
    socket.addEventListener('close', (event) => {
      const reason = event.reason || `code ${event.code}`;
      if (!opened) {
        clearTimeout(timer);
        reject(new Error('Can’t reach the runtime. Is wheelhouse serve still running?'));
        return;
      }
      for (const listener of closeListeners) listener(reason);
    });
  });
}
