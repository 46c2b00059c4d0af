import { ERROR_REASON_CODES, ErrorCode, isErrorReason, type ErrorData, type ErrorReason } from './error-reasons.js';

export { ErrorCode };
export * from './error-reasons.js';

/** The error object carried by a failed response. */
export interface RpcErrorShape {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * A typed protocol error; thrown by handlers and rethrown by clients. What
 * the runtime throws carries either no data or `ErrorData` (a reason from the
 * closed union, see error-reasons.ts): the constructor and helpers accept
 * nothing else. Only `fromShape` (a client rebuilding what arrived) holds
 * arbitrary data.
 */
export class RpcError extends Error implements RpcErrorShape {
  readonly code: number;
  readonly data?: unknown;

  constructor(code: number, message: string, data?: ErrorData) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }

  /** The reason in `data.reason`, when it is one of ours. */
  get reason(): ErrorReason | null {
    const reason = typeof this.data === 'object' && this.data !== null ? (this.data as { reason?: unknown }).reason : undefined;
    return isErrorReason(reason) ? reason : null;
  }

  toJSON(): RpcErrorShape {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /**
   * A refusal a client can act on: `reason` from the closed union picks the
   * JSON-RPC code (always the same one for a reason), `details` the ids and
   * paths that help.
   */
  static because(reason: ErrorReason, message: string, details: Readonly<Record<string, unknown>> = {}): RpcError {
    return new RpcError(ERROR_REASON_CODES[reason], message, { ...details, reason });
  }

  /** A malformed request with nothing for a client to switch on. */
  static invalidRequest(message: string): RpcError {
    return new RpcError(ErrorCode.InvalidRequest, message);
  }

  static invalidParams(message: string): RpcError {
    return new RpcError(ErrorCode.InvalidParams, message);
  }

  static internal(message: string): RpcError {
    return new RpcError(ErrorCode.Internal, message);
  }

  /** An unknown thread id: a clear -32600 naming the id. */
  static threadNotFound(threadId: string): RpcError {
    return RpcError.because('thread.notFound', `thread not found: ${threadId}`, { threadId });
  }

  /** What arrived over the wire, data as sent (another server's reasons included). */
  static fromShape(shape: RpcErrorShape): RpcError {
    const error = new RpcError(shape.code, shape.message);
    if (shape.data !== undefined) (error as { data?: unknown }).data = shape.data;
    return error;
  }
}

/**
 * Why a request the server sent to a client got no usable answer; `notWaiting`
 * is what a late answer is told (the first answer won, or it was withdrawn).
 */
export type ServerRequestFailure = 'timeout' | 'closed' | 'refused' | 'badAnswer' | 'canceled' | 'notWaiting';

/** A server-to-client request (e.g. `item/tool/call`) that failed; `reason` says how. */
export class ServerRequestError extends Error {
  constructor(
    readonly reason: ServerRequestFailure,
    message: string,
    /** The client's error answer, when it refused. */
    readonly clientError?: RpcErrorShape,
  ) {
    super(message);
    this.name = 'ServerRequestError';
  }
}
