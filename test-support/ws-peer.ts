import WebSocket from 'ws';
import { ProtocolPeer } from './protocol-peer.js';

/** A protocol peer over a real WebSocket. */
export interface WsPeer {
  readonly peer: ProtocolPeer;
  readonly socket: WebSocket;
  /** Close code and reason once the socket has closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
}

/** Either an open socket or the HTTP status the server refused the upgrade with. */
export type WsConnectOutcome =
  | { readonly kind: 'open'; readonly ws: WsPeer }
  | { readonly kind: 'refused'; readonly status: number };

/** Headers a test chooses for the upgrade request. */
export interface WsConnectOptions {
  /** Sent as the Origin header (browsers always send one; Node clients need not). */
  readonly origin?: string;
  /**
   * Sees every text frame first; a frame it returns true for is its own and never reaches the
   * peer (a benchmark's reader of an output flood: one parse per frame, as a client makes, and
   * nothing kept).
   */
  readonly claim?: (frame: Buffer) => boolean;
}

/** Opens a WebSocket and reports whether the server accepted it or answered with an HTTP status. */
export function tryConnectWs(url: string, options: WsConnectOptions = {}): Promise<WsConnectOutcome> {
  const socket = new WebSocket(url, options.origin ? { origin: options.origin } : {});
  return new Promise<WsConnectOutcome>((resolve, reject) => {
    socket.once('unexpected-response', (_req, res) => {
      resolve({ kind: 'refused', status: res.statusCode ?? 0 });
      res.resume();
      socket.terminate();
    });
    socket.on('error', (error) => reject(error)); // no-op once settled
    socket.once('open', () => {
      const peer = new ProtocolPeer({ send: (text) => socket.send(text) });
      socket.on('message', (data, isBinary) => {
        if (!isBinary && options.claim?.(data as Buffer)) return;
        peer.inbox.push(isBinary ? '<binary frame>' : String(data));
      });
      const closed = new Promise<{ code: number; reason: string }>((done) => {
        socket.once('close', (code, reason) => {
          peer.inbox.close(`websocket closed ${code}`);
          done({ code, reason: reason.toString() });
        });
      });
      resolve({ kind: 'open', ws: { peer, socket, closed } });
    });
  });
}

/** Opens a WebSocket the server must accept. */
export async function connectWs(url: string, options: WsConnectOptions = {}): Promise<WsPeer> {
  const outcome = await tryConnectWs(url, options);
  if (outcome.kind === 'refused') throw new Error(`server refused the WebSocket with HTTP ${outcome.status}`);
  return outcome.ws;
}
