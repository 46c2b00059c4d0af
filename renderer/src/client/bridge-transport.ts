import { BRIDGE_GLOBAL, type WheelhouseBridge } from '../../../shared/ipc.js';
import type { ClosableTransport } from './websocket-transport.js';

/** The Electron preload bridge, when the renderer runs inside the desktop app. */
export function findBridge(target: Window): WheelhouseBridge | undefined {
  return (target as unknown as Partial<Record<typeof BRIDGE_GLOBAL, WheelhouseBridge>>)[BRIDGE_GLOBAL];
}

/** Where a file dropped onto the window is on disk: only the desktop app can say; null in a browser. */
export function droppedPath(target: Window, file: File): string | null {
  const bridge = findBridge(target);
  if (!bridge || typeof bridge.pathForFile !== 'function') return null;
  return bridge.pathForFile(file) || null;
}

/**
 * Adapts the bridge to a transport. IPC never drops while the window lives,
 * so close only detaches this transport's listeners.
 */
export function bridgeTransport(bridge: WheelhouseBridge): ClosableTransport {
  const detach = new Set<() => void>();
  return {
    send: (text) => bridge.send(text),
    onMessage: (listener) => {
      const off = bridge.onMessage(listener);
      detach.add(off);
      return () => {
        detach.delete(off);
        off();
      };
    },
    onClose: () => () => undefined,
    close: () => {
      for (const off of detach) off();
      detach.clear();
    },
  };
}
