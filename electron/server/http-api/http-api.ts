import { timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type { CarrierRuntime } from '../../host/carrier-runtime.js';
import { WHEELHOUSE_VERSION } from '../../runtime/version.js';
import { ApprovalRoutes } from './approval-routes.js';
import { isOwnOrigin } from '../loopback-host.js';
import { HttpError, httpErrorOf, sendError, sendJson } from './http-errors.js';
import { DEFAULT_SSE_OPTIONS, streamEvents, type SseOptions } from './sse-stream.js';
import { callerFor, ThreadRoutes } from './thread-routes.js';
import { HttpToolCalls } from './tool-calls.js';

export const RUNTIME_API_VERSION = '1.0';

export interface HttpApiOptions {
  readonly token: string;
  readonly host: string;
  /** The bound port (known only after listen). */
  readonly port: () => number;
  readonly sse?: Partial<SseOptions>;
}

export interface HttpApi {
  /** Answers a request under `/v1/`; `false` for any other path. */
  handle(req: http.IncomingMessage, res: http.ServerResponse): boolean;
  /** Fails the tool calls still waiting for an HTTP answer (their client is gone). */
  close(): void;
}

/**
 * The runtime's HTTP API (seed 004) on `wheelhouse serve`: the same CarrierRuntime,
 * dispatcher and event log as the WebSocket carrier. Loopback only (the web
 * server refuses a foreign Host on every path before this is asked), with the
 * runtime token; no CORS headers are ever sent, so a web page in a browser
 * cannot read any answer.
 */
export function createHttpApi(runtime: CarrierRuntime, options: HttpApiOptions): HttpApi {
  const routes = new ThreadRoutes(runtime, callerFor(runtime));
  const toolCalls = new HttpToolCalls(runtime);
  const approvals = new ApprovalRoutes(runtime);
  const sse: SseOptions = { ...DEFAULT_SSE_OPTIONS, ...options.sse };

  const route = async (req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> => {
    const method = req.method ?? 'GET';
    const parts = pathParts(url);
    // The server has checked Host already, for every path; the origin is the API's own rule.
    if (req.headers.origin !== undefined && !isOwnOrigin(req.headers.origin, options.host, options.port())) {
      throw new HttpError(403, 'forbidden', 'cross-origin requests are not allowed');
    }
    if (parts[0] === 'runtime' && parts[1] === 'info' && parts.length === 2) {
      requireMethod(method, 'GET');
      sendJson(res, 200, runtimeInfo(options));
      return;
    }
    requireToken(req, options.token, isEventStream(method, parts) ? url.searchParams.get('token') : null);
    const [collection, threadId, sub, subId, action] = parts;
    if (collection === 'events' && parts.length === 1) {
      requireMethod(method, 'GET');
      streamEvents(runtime.events, res, { sinceSeq: sinceSeqOf(req, url) }, sse);
      return;
    }
    if (collection === 'approvals' && parts.length === 1) {
      requireMethod(method, 'GET');
      return approvals.list(res, url.searchParams);
    }
    if (collection === 'approvals' && parts.length === 2) {
      requireMethod(method, 'POST');
      return approvals.answer(req, res, parts[1]!);
    }
    if (collection !== 'threads') throw notFound(url);
    if (threadId === undefined) {
      if (method === 'GET') return routes.list(res, url.searchParams);
      requireMethod(method, 'POST');
      return routes.create(req, res);
    }
    if (sub === undefined) {
      if (method === 'GET') return routes.get(res, threadId);
      requireMethod(method, 'PATCH');
      return routes.patch(req, res, threadId);
    }
    if (sub === 'fork' && parts.length === 3) {
      requireMethod(method, 'POST');
      return routes.fork(req, res, threadId);
    }
    if (sub === 'events' && parts.length === 3) {
      requireMethod(method, 'GET');
      runtime.threads.require(threadId);
      streamEvents(runtime.events, res, { threadId, sinceSeq: sinceSeqOf(req, url) }, sse);
      return;
    }
    if (sub === 'tool-calls' && subId !== undefined && parts.length === 4) {
      requireMethod(method, 'POST');
      return toolCalls.answer(req, res, threadId, subId);
    }
    if (sub === 'turns' && subId === undefined) {
      requireMethod(method, 'POST');
      return routes.startTurn(req, res, threadId);
    }
    if (sub === 'turns' && subId !== undefined && parts.length === 5) {
      requireMethod(method, 'POST');
      if (action === 'steer') return routes.steer(req, res, threadId, subId);
      if (action === 'interrupt') return routes.interrupt(res, threadId, subId);
    }
    throw notFound(url);
  };

  return {
    handle: (req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== '/v1' && !url.pathname.startsWith('/v1/')) return false;
      route(req, res, url).catch((error: unknown) => sendError(res, httpErrorOf(error)));
      return true;
    },
    close: () => {
      toolCalls.close();
    },
  };
}

function runtimeInfo(options: HttpApiOptions) {
  return {
    service: 'wheelhouse',
    runtime_api_version: RUNTIME_API_VERSION,
    version: WHEELHOUSE_VERSION,
    commit: process.env['WHEELHOUSE_COMMIT'] ?? null,
    bind: { host: options.host, port: options.port() },
    auth_required: true,
    transports: ['http', 'sse', 'websocket'],
    // Each is true only when it works end to end today.
    capabilities: {
      threads: true,
      turns: true,
      turn_steer: true,
      turn_interrupt: true,
      event_replay: true,
      external_tools: true,
      environments: false,
      worker_runtime: false,
    },
    experimental: { environments: false },
  };
}

function pathParts(url: URL): string[] {
  try {
    return url.pathname.split('/').filter(Boolean).map(decodeURIComponent).slice(1);
  } catch {
    throw new HttpError(400, 'bad_request', 'malformed percent-encoding in the path');
  }
}

/**
 * Checks the token in constant time. `queryToken` is the `?token=` of an event
 * stream, the one place a header cannot be sent (a browser's EventSource);
 * every other endpoint ignores the query. No error text repeats what was sent.
 */
function requireToken(req: http.IncomingMessage, expected: string, queryToken: string | null): void {
  const header = req.headers['x-wheelhouse-runtime-token'];
  // Auth schemes are case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are Bearer.
  const bearer = /^bearer[ \t]+(.*)$/is.exec(req.headers.authorization ?? '')?.[1]?.trim();
  const given = bearer ?? (Array.isArray(header) ? header[0] : header) ?? queryToken ?? undefined;
  if (given === undefined) {
    throw new HttpError(
      401,
      'unauthorized',
      'missing token: send Authorization: Bearer <token> or X-Wheelhouse-CarrierRuntime-Token (event streams also take ?token=)',
    );
  }
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw new HttpError(401, 'unauthorized', 'wrong token');
}

/** `GET /v1/events` and `GET /v1/threads/{id}/events`: the endpoints an EventSource opens. */
function isEventStream(method: string, parts: readonly string[]): boolean {
  if (method !== 'GET') return false;
  return (parts.length === 1 && parts[0] === 'events') || (parts.length === 3 && parts[0] === 'threads' && parts[2] === 'events');
}

function requireMethod(method: string, allowed: string): void {
  if (method !== allowed) throw new HttpError(405, 'method_not_allowed', `use ${allowed} here (got ${method})`);
}

function notFound(url: URL): HttpError {
  return new HttpError(404, 'not_found', `no such endpoint: ${url.pathname}`);
}

/**
 * The `Last-Event-ID` an EventSource sends on reconnect (it wins: the URL still
 * carries the first `since_seq`), else `since_seq`; null = live only.
 */
function sinceSeqOf(req: http.IncomingMessage, url: URL): number | null {
  const header = req.headers['last-event-id'];
  const raw = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('since_seq');
  if (raw === undefined || raw === null) return null;
  if (!/^\d{1,15}$/.test(raw.trim())) throw new HttpError(400, 'invalid_params', `since_seq must be a non-negative integer (got ${JSON.stringify(raw)})`);
  return Number(raw.trim());
}
