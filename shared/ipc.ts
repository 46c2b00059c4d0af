/**
 * The Electron bridge contract. The preload exposes exactly this object as
 * `window.wheelhouse`; it carries protocol text both ways, so the renderer
 * speaks the same JSON-RPC over IPC as over WebSocket. Channel names live
 * here and nowhere else.
 */
export const IPC_CHANNELS = {
  /** renderer -> main: one JSON-RPC message (string). */
  toMain: 'wheelhouse:rpc:to-main',
  /** main -> renderer: one JSON-RPC message (string). */
  toRenderer: 'wheelhouse:rpc:to-renderer',
} as const;

/** What the preload exposes on `window.wheelhouse`. */
export interface WheelhouseBridge {
  /** Which host the renderer runs in. */
  readonly host: 'electron';
  /** Sends one protocol message (JSON text) to the runtime. */
  send(text: string): void;
  /** Subscribes to protocol messages from the runtime; returns an unsubscribe function. */
  onMessage(listener: (text: string) => void): () => void;
  /**
   * Where a file or folder dropped onto the window is on disk (Electron's
   * `webUtils.getPathForFile`; pages cannot see paths). `file` is a DOM `File`;
   * anything else throws. Empty for a File that is not on disk.
   */
  pathForFile(file: unknown): string;
}

/** Name of the global the preload defines. */
export const BRIDGE_GLOBAL = 'wheelhouse';
