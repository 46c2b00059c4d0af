import { IPC_CHANNELS, type WheelhouseBridge } from '../../shared/ipc.js';
import { MAX_MESSAGE_BYTES } from '../../shared/protocol/limits.js';

/** The slice of ipcRenderer the bridge uses; never handed to the page itself. */
export interface RendererIpc {
  send(channel: string, text: string): void;
  on(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
}

/**
 * The object the preload exposes as `window.wheelhouse`: protocol text out on
 * one channel, protocol text in on the other, and where a dropped file is
 * (`pathForFile`: Electron's webUtils), nothing else. Bad input from the
 * page throws (TypeError / RangeError) instead of reaching the main process.
 */
export function createBridge(ipc: RendererIpc, pathForFile: (file: never) => string): WheelhouseBridge {
  return Object.freeze({
    host: 'electron' as const,
    send(text: string): void {
      if (typeof text !== 'string') throw new TypeError('wheelhouse.send expects a string of JSON text');
      if (exceedsBytes(text, MAX_MESSAGE_BYTES)) {
        throw new RangeError(`wheelhouse.send: message exceeds ${MAX_MESSAGE_BYTES} bytes`);
      }
      ipc.send(IPC_CHANNELS.toMain, text);
    },
    onMessage(listener: (text: string) => void): () => void {
      if (typeof listener !== 'function') throw new TypeError('wheelhouse.onMessage expects a function');
      const forward = (_event: unknown, payload: unknown): void => {
        if (typeof payload === 'string') listener(payload);
      };
      ipc.on(IPC_CHANNELS.toRenderer, forward);
      let subscribed = true;
      return () => {
        if (!subscribed) return;
        subscribed = false;
        ipc.removeListener(IPC_CHANNELS.toRenderer, forward);
      };
    },
    pathForFile(file: unknown): string {
      if (typeof file !== 'object' || file === null) throw new TypeError('wheelhouse.pathForFile expects a dropped File');
      return pathForFile(file as never);
    },
  });
}

/** Whether `text` is longer than `limit` bytes in UTF-8, without encoding it. */
export function exceedsBytes(text: string, limit: number): boolean {
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
    if (bytes > limit) return true;
  }
  return false;
}
