import type http from 'node:http';
import { ErrorCode, RpcError } from '../../../shared/protocol/index.js';

/** An HTTP failure with its status and a stable machine-readable code. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * Maps the runtime's typed JSON-RPC errors to HTTP: bad params are the
 * client's fault (400), an unknown thread is 404, a request the thread's
 * state refuses (a turn already running, an archived thread) is 409.
 */
export function httpErrorOf(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof RpcError) {
    if (error.code === ErrorCode.InvalidParams) return new HttpError(400, 'invalid_params', error.message);
    if (error.code === ErrorCode.InvalidRequest) {
      if (error.message.startsWith('thread not found')) return new HttpError(404, 'not_found', error.message);
      return new HttpError(409, 'conflict', error.message);
    }
    if (error.code === ErrorCode.MethodNotFound) return new HttpError(404, 'not_found', error.message);
  }
  return new HttpError(500, 'internal', error instanceof Error ? error.message : String(error));
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

export function sendError(res: http.ServerResponse, error: HttpError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, { error: { code: error.code, message: error.message } });
}
