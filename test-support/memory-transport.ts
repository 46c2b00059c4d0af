import type { Transport } from '../shared/protocol/index.js';

/** One end of an in-memory pair, with a way to close the channel from this side. */
export interface MemoryTransport extends Transport {
  close(reason: string): void;
}

/**
 * Two linked transports: text sent on one arrives (asynchronously, in order)
 * at the other, as on a real channel. Closing either end closes both.
 */
export function createMemoryTransportPair(): [MemoryTransport, MemoryTransport] {
  const messageListeners = [new Set<(text: string) => void>(), new Set<(text: string) => void>()] as const;
  const closeListeners = [new Set<(reason: string) => void>(), new Set<(reason: string) => void>()] as const;
  let closed = false;

  const end = (side: 0 | 1): MemoryTransport => {
    const other = side === 0 ? 1 : 0;
    return {
      send(text) {
        if (closed) throw new Error('transport closed');
        queueMicrotask(() => {
          if (!closed) for (const listener of messageListeners[other]) listener(text);
        });
      },
      onMessage(listener) {
        messageListeners[side].add(listener);
        return () => messageListeners[side].delete(listener);
      },
      onClose(listener) {
        closeListeners[side].add(listener);
        return () => closeListeners[side].delete(listener);
      },
      close(reason) {
        if (closed) return;
        closed = true;
        for (const listeners of closeListeners) for (const listener of listeners) listener(reason);
      },
    };
  };
  return [end(0), end(1)];
}
