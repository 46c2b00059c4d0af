import type { WebContents, WebFrameMain } from 'electron';
import { IPC_CHANNELS } from '../../shared/ipc.js';
import type { RpcConnection } from '../server/rpc-connection.js';
import type { RpcHost } from '../server/rpc-host.js';
import { isTrustedSender, type IpcSenderInfo } from './security-policy.js';

/** What the carrier needs of a renderer; Electron's WebContents provides it. */
export interface RendererEndpoint {
  readonly id: number;
  send(channel: string, text: string): void;
  isDestroyed(): boolean;
}

/** One message that arrived on the renderer -> main channel. */
export interface IncomingIpc {
  readonly endpoint: RendererEndpoint;
  readonly frame: IpcSenderInfo['frame'];
  /** Whatever the renderer sent; only a string is protocol text. */
  readonly payload: unknown;
}

/** Why a message was or was not fed to the runtime. */
export type IpcVerdict =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly reason: 'untrusted-sender' | 'not-a-string' | 'carrier-closed' };

/**
 * The Electron IPC carrier: one protocol connection per renderer (webContents),
 * opened on its first trusted message and ended when that renderer reloads,
 * crashes or is destroyed, so a fresh page always starts a fresh session.
 * Messages from anything but our window's main frame on the app origin are
 * dropped before they reach the runtime.
 */
export class IpcCarrier {
  private readonly connections = new Map<number, RpcConnection>();
  private closed = false;

  constructor(
    private host: RpcHost,
    /** The webContents id of the app window, or null while there is none. */
    private readonly trustedWebContentsId: () => number | null,
    private readonly logError: (message: string, error: unknown) => void,
  ) {}

  /** Open sessions (one per renderer). */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** Checks one incoming message and, when it is trusted protocol text, feeds it to the renderer's session. */
  receive(message: IncomingIpc): IpcVerdict {
    if (this.closed) return { accepted: false, reason: 'carrier-closed' };
    const { endpoint } = message;
    if (!isTrustedSender({ webContentsId: endpoint.id, frame: message.frame }, this.trustedWebContentsId())) {
      return { accepted: false, reason: 'untrusted-sender' };
    }
    if (typeof message.payload !== 'string') return { accepted: false, reason: 'not-a-string' };
    this.connectionFor(endpoint)
      .receive(message.payload)
      .catch((error: unknown) => this.logError('IPC message handling failed', error));
    return { accepted: true };
  }

  /** Ends a renderer's session (reload, crash, destroyed); its next message opens a new one. */
  end(webContentsId: number): void {
    const connection = this.connections.get(webContentsId);
    if (!connection) return;
    this.connections.delete(webContentsId);
    this.host.disconnect(connection);
  }

  /**
   * Moves the carrier to another host (the desktop app restarted its
   * runtime): every session on the old one ends, and each renderer's next
   * message opens a fresh session on the new one.
   */
  replaceHost(host: RpcHost): void {
    for (const id of [...this.connections.keys()]) this.end(id);
    this.host = host;
  }

  /** Ends every session and refuses further messages. */
  close(): void {
    this.closed = true;
    for (const id of [...this.connections.keys()]) this.end(id);
  }

  private connectionFor(endpoint: RendererEndpoint): RpcConnection {
    const existing = this.connections.get(endpoint.id);
    if (existing?.isOpen) return existing;
    if (existing) this.end(endpoint.id);
    const connection = this.host.connect('ipc', {
      send: (text) => {
        if (endpoint.isDestroyed()) throw new Error('renderer is gone');
        endpoint.send(IPC_CHANNELS.toRenderer, text);
      },
    });
    this.connections.set(endpoint.id, connection);
    return connection;
  }
}

/**
 * Feeds one window's renderer messages to the carrier (the app's one
 * carrier, made once its runtime starts). It listens on that
 * window's own `webContents.ipc`, so no other page's messages arrive at all;
 * the carrier still checks every sender. The only raw IPC of the main process.
 */
export function listenToWindow(
  carrier: () => IpcCarrier | null,
  contents: WebContents,
  onDropped: (reason: Extract<IpcVerdict, { accepted: false }>['reason']) => void,
): void {
  contents.ipc.on(IPC_CHANNELS.toMain, (event, payload: unknown) => {
    const current = carrier();
    const verdict: IpcVerdict = current
      ? current.receive({ endpoint: event.sender, frame: frameInfo(event.senderFrame), payload })
      : { accepted: false, reason: 'carrier-closed' };
    if (!verdict.accepted) onDropped(verdict.reason);
  });
}

/** The sender frame's URL and position; null when the frame is already gone. */
function frameInfo(frame: WebFrameMain | null): IpcSenderInfo['frame'] {
  if (!frame) return null;
  try {
    return frame.detached ? null : { url: frame.url, isMainFrame: frame.parent === null };
  } catch {
    return null; // accessing a disposed frame throws
  }
}
