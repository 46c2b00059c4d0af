import type { Transport } from '../../../shared/protocol/client.js';

/** A transport the client can close itself (to abandon a half-open connection). */
export interface ClosableTransport extends Transport {
  close(): void;
}

/** Opens a WebSocket and resolves once it is open; rejects if it closes first. */
export function openWebSocketTransport(url: string): Promise<ClosableTransport> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const messageListeners = new Set<(text: string) => void>();
    const closeListeners = new Set<(reason: string) => void>();
    let opened = false;

    socket.addEventListener('open', () => {
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
        reject(new Error('Can’t reach the runtime. Is wheelhouse serve still running?'));
        return;
      }
      for (const listener of closeListeners) listener(reason);
    });
  });
}
