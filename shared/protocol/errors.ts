/** JSON-RPC error codes used on every carrier. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** `data.reason` of a request refused because the runtime could not open its home (a client explains that once, not per request). */
export const RUNTIME_UNAVAILABLE = 'runtime.unavailable';

/** The error object carried by a failed response. */
export interface RpcErrorShape {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A typed protocol error; thrown by handlers and rethrown by clients. */
export class RpcError extends Error implements RpcErrorShape {
  readonly code: number;
  readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }

  toJSON(): RpcErrorShape {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static invalidRequest(message: string, data?: unknown): RpcError {
    return new RpcError(ErrorCode.InvalidRequest, message, data);
  }

  static invalidParams(message: string, data?: unknown): RpcError {
    return new RpcError(ErrorCode.InvalidParams, message, data);
  }

  static internal(message: string, data?: unknown): RpcError {
    return new RpcError(ErrorCode.Internal, message, data);
  }

  /** An unknown thread id: a clear -32600 naming the id. */
  static threadNotFound(threadId: string): RpcError {
    return new RpcError(ErrorCode.InvalidRequest, `thread not found: ${threadId}`, { threadId });
  }

  static fromShape(shape: RpcErrorShape): RpcError {
    return new RpcError(shape.code, shape.message, shape.data);
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
