import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_MESSAGE_BYTES } from '../../shared/protocol/index.js';
import type { CarrierRuntime } from '../host/carrier-runtime.js';
import type { RpcHost } from './rpc-host.js';
import { createHttpApi } from './http-api/http-api.js';
import { HttpError, sendError } from './http-api/http-errors.js';
import { hostRefusal, isAllowedHost, isOwnOrigin } from './loopback-host.js';
import type { SseOptions } from './http-api/sse-stream.js';
import { serveStatic } from './static-files.js';
import { heldAsBytes, WriteBatcher, type Corkable } from './write-batcher.js';

export interface WebServerOptions {
  /** Loopback only; anything else is refused. */
  readonly host?: '127.0.0.1' | 'localhost' | '::1';
  /** 0 picks a free port. */
  readonly port?: number;
  /** Fixed token (tests); a random one otherwise. */
  readonly token?: string;
  /** Folder of the built renderer; without it only the WebSocket is served. */
  readonly staticRoot?: string;
  /**
   * A client whose unsent backlog grows past this is disconnected, not buffered
   * forever. Runtime events never get it there (a slow client is served from the
   * log past 1 MB behind); output that is in no log (a terminal's, a job's live deltas) can.
   */
  readonly maxBufferedBytes?: number;
  readonly heartbeatMs?: number;
  /** Server-Sent Events limits of the HTTP API (tests shorten them). */
  readonly sse?: Partial<SseOptions>;
}

export interface RunningWebServer {
  readonly url: string;
  readonly wsUrl: string;
  /** Base of the HTTP API (`http://127.0.0.1:PORT/v1`). */
  readonly apiUrl: string;
  readonly token: string;
  readonly port: number;
  /**
   * Stops listening and ends every connection within about a second: open
   * WebSockets get a close frame carrying `reason` (pages show it), idle or
   * half-open TCP connections are destroyed, so nothing holds the exit.
   */
  close(reason?: string): Promise<void>;
}

/** Close reason sent to pages when the server stops (at most 123 bytes, the WebSocket limit). */
export const SERVER_STOPPED_REASON = 'Wheelhouse stopped. Start it again and this page reconnects.';

/** How long open WebSockets get to answer the close frame before they are cut. */
const CLOSE_GRACE_MS = 500;

/** Close code for a client whose unread events were pruned from the log (an application code: 4000–4999). */
export const BEHIND_PRUNED_LOG_CLOSE_CODE = 4010;

/** Path of the protocol WebSocket. */
export const RPC_PATH = '/rpc';

/**
 * HTTP + WebSocket on loopback (`wheelhouse serve`): serves the renderer, the
 * protocol over WebSocket and the HTTP API under `/v1/` (electron/server/http-api). Every WebSocket needs the token; browsers from other origins
 * are refused, so a web page cannot drive the runtime.
 */
export async function startWebServer(rpc: RpcHost<CarrierRuntime>, options: WebServerOptions = {}): Promise<RunningWebServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  const maxBuffered = options.maxBufferedBytes ?? 64 * 1024 * 1024;

  let port = 0;
  const api = createHttpApi(rpc.runtime, { token, host, port: () => port, ...(options.sse ? { sse: options.sse } : {}) });
  const server = http.createServer((req, res) => {
    // Before anything else, on every path: the API, the token probe and the static files.
    if (!isAllowedHost(req.headers.host, host, port)) {
      sendError(res, new HttpError(403, 'host_not_allowed', hostRefusal(req.headers.host, port)));
      return;
    }
    if (api.handle(req, res)) return;
    const url = new URL(req.url ?? '/', 'http://localhost');
    // A page cannot read the HTTP status of a refused WebSocket; this plain GET on the
    // same path tells it whether its token is refused (401) or the server is away.
    if (url.pathname === RPC_PATH) {
      const status = tokenMatches(url.searchParams.get('token'), token) ? 204 : 401;
      res.writeHead(status, { 'Cache-Control': 'no-store' }).end();
      return;
    }
    // A failure while answering ends that response only, never the server.
    if (options.staticRoot) serveStatic(options.staticRoot, req, res).catch(() => res.destroy());
    else res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES + 1024 * 1024 });
  // Every TCP connection, including ones that never sent a byte (browsers open spare
  // ones ahead of need): server.close() alone would wait for them forever.
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  server.on('upgrade', (req, socket, head) => {
    // A client may reset the connection while we refuse it; that must not crash the server.
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://localhost');
    const refuse = (status: number, reason: string, message = '') => {
      const body = Buffer.from(message);
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\n${message}`);
    };
    if (!isAllowedHost(req.headers.host, host, port)) return refuse(403, 'Forbidden', hostRefusal(req.headers.host, port));
    if (url.pathname !== RPC_PATH) return refuse(404, 'Not Found');
    if (!tokenMatches(url.searchParams.get('token'), token)) return refuse(401, 'Unauthorized');
    const origin = req.headers.origin;
    if (origin !== undefined && !isOwnOrigin(origin, host, port)) return refuse(403, 'Forbidden', 'cross-origin WebSocket connections are not allowed');
    wss.handleUpgrade(req, socket, head, (ws) => attach(rpc, ws, maxBuffered));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      const live = ws as WebSocket & { isAlive?: boolean };
      if (live.isAlive === false) {
        ws.terminate();
        continue;
      }
      live.isAlive = false;
      ws.ping();
    }
  }, options.heartbeatMs ?? 30_000);
  heartbeat.unref();

  const hostForUrl = host === '::1' ? '[::1]' : host;
  return {
    url: `http://${hostForUrl}:${port}/#token=${token}`,
    wsUrl: `ws://${hostForUrl}:${port}${RPC_PATH}?token=${token}`,
    apiUrl: `http://${hostForUrl}:${port}/v1`,
    token,
    port,
    close: async (reason = SERVER_STOPPED_REASON) => {
      clearInterval(heartbeat);
      // Event streams end first: they never end on their own.
      api.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const open = [...wss.clients];
      const handshakes = open.map((ws) => new Promise<void>((resolve) => ws.once('close', () => resolve())));
      for (const ws of open) ws.close(1001, reason);
      let graceTimer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, CLOSE_GRACE_MS)));
      await Promise.race([Promise.all(handshakes), grace]);
      // Left pending, the timer would hold the process open for the rest of the grace period.
      clearTimeout(graceTimer);
      for (const ws of wss.clients) ws.terminate();
      for (const socket of sockets) socket.destroy();
      wss.close();
      await closed;
    },
  };
}

function attach(rpc: RpcHost, ws: WebSocket, maxBuffered: number): void {
  const live = ws as WebSocket & { isAlive?: boolean };
  // ws keeps its net.Socket private; corking it is how Node batches writes.
  const batcher = new WriteBatcher((ws as unknown as { _socket?: Corkable })._socket);
  live.isAlive = true;
  ws.on('pong', () => {
    live.isAlive = true;
  });
  /** One message as a text frame (`text` may be its UTF-8 bytes). */
  const send = (text: string | Buffer, urgent: boolean) => {
    if (ws.readyState !== ws.OPEN) throw new Error('socket closed');
    if (ws.bufferedAmount > maxBuffered) {
      ws.close(1008, 'client too slow: backlog exceeded');
      throw new Error('client too slow');
    }
    batcher.beforeWrite(urgent);
    // A text frame either way: bytes are sent as they are, and they are the message's UTF-8.
    ws.send(heldAsBytes(text), { binary: false });
  };
  const connection = rpc.connect('websocket', {
    send,
    sendBytes: send,
    unsentBytes: () => ws.bufferedAmount,
    // What it had not read was pruned from the log: it reconnects, replays and is told `reset`.
    endBehindPrunedLog: (reason) => ws.close(BEHIND_PRUNED_LOG_CLOSE_CODE, reason.slice(0, 123)),
  });
  // Output waiting for this client (a flooding command) goes on once the socket has drained.
  (ws as unknown as { _socket?: Socket })._socket?.on('drain', () => connection.drained());
  ws.on('message', (data, isBinary) => {
    const text = isBinary ? '' : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString();
    void connection.receive(isBinary ? '\u0000binary' : text);
  });
  ws.on('close', () => {
    batcher.dispose();
    rpc.disconnect(connection);
  });
  ws.on('error', () => {
    batcher.dispose();
    rpc.disconnect(connection);
  });
}

function tokenMatches(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
