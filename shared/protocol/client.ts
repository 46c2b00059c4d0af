import { ErrorCode, RpcError } from './errors.js';
import {
  isServerRequestMethod,
  serverRequests,
  clientMethods,
  type AnyNotification,
  type ClientMethod,
  type NotificationMethod,
  type NotificationParamsOf,
  type ParamsOf,
  type ResultOf,
  type ServerRequestMethod,
  type ServerRequestParamsOf,
  type ServerRequestResultOf,
} from './registry.js';
import { describeIssues, parseParams } from './validation.js';
import { classifyMessage, type RequestId, type RequestMessage, type ResponseMessage } from './wire.js';

/** A bidirectional text channel: WebSocket, stdio lines, or the Electron bridge. */
export interface Transport {
  send(text: string): void;
  /** Subscribes to incoming text; returns an unsubscribe function. */
  onMessage(listener: (text: string) => void): () => void;
  /** Subscribes to the channel closing; returns an unsubscribe function. */
  onClose(listener: (reason: string) => void): () => void;
}

type NotificationListener = (notification: AnyNotification) => void;

/** Answers one server request (e.g. runs a client-side tool); throw an RpcError to refuse it. */
export type ServerRequestHandler<M extends ServerRequestMethod> = (
  params: ServerRequestParamsOf<M>,
  /** The request's id: `serverRequest/resolved` names it when another client answered first. */
  context: { readonly requestId: RequestId },
) => ServerRequestResultOf<M> | Promise<ServerRequestResultOf<M>>;

/**
 * Answers a server request that has no handler (a method this client does
 * not know, or one it registered nothing for), e.g. by showing a generic
 * prompt. Its result is checked against the method's schema when the method is declared.
 */
export type FallbackRequestHandler = (request: { readonly method: string; readonly params: unknown; readonly requestId: RequestId }) => unknown;

export interface RpcClientOptions {
  /**
   * Check every result against its method's schema and reject the request
   * when it breaks it (tests and development builds; costs CPU per response).
   */
  readonly validateResults?: boolean;
}

interface Pending {
  readonly method: ClientMethod;
  resolve(value: unknown): void;
  reject(error: RpcError): void;
}

/** Typed JSON-RPC client derived from the protocol tables; one per connection. */
export class RpcClient {
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly listeners = new Set<NotificationListener>();
  private readonly requestHandlers = new Map<ServerRequestMethod, (params: unknown, context: { readonly requestId: RequestId }) => unknown>();
  private fallbackHandler: FallbackRequestHandler | null = null;
  private readonly disposers: Array<() => void> = [];
  private closedReason: string | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly options: RpcClientOptions = {},
  ) {
    this.disposers.push(transport.onMessage((text) => this.receive(text)));
    this.disposers.push(transport.onClose((reason) => this.fail(reason)));
  }

  /** Sends a request and resolves with its typed result, or rejects with an RpcError. */
  request<M extends ClientMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (this.closedReason !== undefined) {
      return Promise.reject(new RpcError(ErrorCode.Internal, `connection closed: ${this.closedReason}`));
    }
    const id = this.nextId++;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject });
      try {
        this.transport.send(JSON.stringify({ id, method, params }));
      } catch (error) {
        this.pending.delete(id);
        reject(RpcError.internal(`send failed: ${error instanceof Error ? error.message : String(error)}`));
      }
    });
  }

  /** Listens to every notification. */
  onNotification(listener: NotificationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Listens to one notification method with typed params. */
  on<N extends NotificationMethod>(
    method: N,
    listener: (params: NotificationParamsOf<N>, seq: number | undefined) => void,
  ): () => void {
    return this.onNotification((n) => {
      if (n.method === method) listener(n.params as NotificationParamsOf<N>, n.seq);
    });
  }

  /**
   * Answers a server request method (one handler per method). Params are
   * validated before the handler sees them; a request nobody handles gets
   * -32601, so the server never waits for an answer that cannot come.
   */
  handle<M extends ServerRequestMethod>(method: M, handler: ServerRequestHandler<M>): () => void {
    this.requestHandlers.set(method, handler as (params: unknown, context: { readonly requestId: RequestId }) => unknown);
    return () => {
      if (this.requestHandlers.get(method) === handler) this.requestHandlers.delete(method);
    };
  }

  /** Answers requests no handler takes (see FallbackRequestHandler); null restores -32601. */
  handleOthers(handler: FallbackRequestHandler | null): void {
    this.fallbackHandler = handler;
  }

  dispose(): void {
    for (const dispose of this.disposers.splice(0)) dispose();
    this.fail('client disposed');
    this.listeners.clear();
  }

  private receive(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return; // A server never sends malformed JSON; ignore rather than crash the UI.
    }
    const classified = classifyMessage(value);
    if (!classified) return;
    if (classified.kind === 'response') {
      const { id } = classified.message;
      if (id === null) return;
      const pending = this.pending.get(id);
      if (!pending) return;
      this.pending.delete(id);
      if ('error' in classified.message) pending.reject(RpcError.fromShape(classified.message.error));
      else this.settle(pending, classified.message.result);
    } else if (classified.kind === 'request') {
      void this.answer(classified.message);
    } else if (classified.kind === 'notification') {
      const notification = classified.message as AnyNotification;
      for (const listener of this.listeners) listener(notification);
    }
  }

  private settle(pending: Pending, result: unknown): void {
    if (!this.options.validateResults) {
      pending.resolve(result);
      return;
    }
    const checked = clientMethods[pending.method].result.safeParse(result);
    if (checked.success) pending.resolve(checked.data);
    else pending.reject(RpcError.internal(`result of ${pending.method} broke its schema: ${describeIssues(checked.error)}`));
  }

  private async answer(request: RequestMessage): Promise<void> {
    let response: ResponseMessage;
    try {
      const method = request.method;
      const handler = isServerRequestMethod(method) ? this.requestHandlers.get(method) : undefined;
      const context = { requestId: request.id };
      if (!handler) {
        if (!this.fallbackHandler) throw new RpcError(ErrorCode.MethodNotFound, `this client does not handle ${method}`);
        const answer = await this.fallbackHandler({ method, params: request.params, requestId: request.id });
        const declared = isServerRequestMethod(method) ? serverRequests[method].result.safeParse(answer) : null;
        if (declared && !declared.success) throw RpcError.internal(`the client's answer to ${method} broke its schema: ${describeIssues(declared.error)}`);
        response = { id: request.id, result: declared ? declared.data : answer };
      } else {
      const spec = serverRequests[method as ServerRequestMethod];
      const result = await handler(parseParams(spec.params, method, request.params), context);
      const checked = spec.result.safeParse(result);
      if (!checked.success) throw RpcError.internal(`the client's answer to ${method} broke its schema: ${describeIssues(checked.error)}`);
      response = { id: request.id, result: checked.data };
      }
    } catch (error) {
      const rpcError = error instanceof RpcError ? error : RpcError.internal(error instanceof Error ? error.message : String(error));
      response = { id: request.id, error: rpcError.toJSON() };
    }
    if (this.closedReason !== undefined) return;
    try {
      this.transport.send(JSON.stringify(response));
    } catch {
      // The channel closed while the handler ran; the server cancels the request itself.
    }
  }

  private fail(reason: string): void {
    this.closedReason ??= reason;
    const error = new RpcError(ErrorCode.Internal, `connection closed: ${reason}`);
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
