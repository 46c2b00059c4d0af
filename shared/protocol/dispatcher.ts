import { serializationKeyOf } from './define.js';
import { ErrorCode, RpcError } from './errors.js';
import {
  clientMethods,
  isClientMethod,
  type ClientMethod,
  type HandlerParamsOf,
  type ParamsOf,
  type ResultOf,
} from './registry.js';
import { SerialQueues } from './serial-queues.js';
import { describeIssues, parseParams } from './validation.js';
import type { RequestMessage, ResponseMessage } from './wire.js';

type Awaitable<T> = T | Promise<T>;

/** One handler per declared method; the compiler rejects a missing one. */
export type MethodHandlers<Ctx> = {
  readonly [M in ClientMethod]: (params: HandlerParamsOf<M>, ctx: Ctx) => Awaitable<ResultOf<M>>;
};

export interface DispatcherOptions {
  /** Check every result against its schema (tests turn this on; it costs CPU in production). */
  readonly validateResults?: boolean;
  /** Called with unexpected (non-RpcError) failures, which reach the client as -32603. */
  readonly onInternalError?: (method: string, error: unknown) => void;
}

/**
 * Routes a request to its handler, validating params at the boundary, and
 * runs it in the serialization scope its method declares (define.ts): two
 * requests on one thread never overlap, whichever clients sent them.
 */
export class Dispatcher<Ctx> {
  private readonly queues = new SerialQueues();

  constructor(
    private readonly handlers: MethodHandlers<Ctx>,
    private readonly options: DispatcherOptions = {},
  ) {}

  async dispatch(request: RequestMessage, ctx: Ctx): Promise<ResponseMessage> {
    try {
      const result = await this.call(request.method, request.params, ctx);
      return { id: request.id, result };
    } catch (error) {
      return { id: request.id, error: toRpcError(request.method, error, this.options).toJSON() };
    }
  }

  /** Calls a method in-process with the same validation as a carrier. */
  async call<M extends ClientMethod>(method: M, params: ParamsOf<M>, ctx: Ctx): Promise<ResultOf<M>>;
  async call(method: string, params: unknown, ctx: Ctx): Promise<unknown>;
  async call(method: string, params: unknown, ctx: Ctx): Promise<unknown> {
    if (!isClientMethod(method)) {
      throw new RpcError(ErrorCode.MethodNotFound, `unknown method: ${method}`);
    }
    const spec = clientMethods[method];
    const parsed = parseParams(spec.params, method, params);
    const handler = this.handlers[method] as (p: unknown, c: Ctx) => Awaitable<unknown>;
    const key = serializationKeyOf(spec, parsed);
    const result = await (key === null ? handler(parsed, ctx) : this.queues.run(key, () => handler(parsed, ctx)));
    if (this.options.validateResults) {
      const checked = spec.result.safeParse(result);
      if (!checked.success) {
        throw RpcError.internal(`result of ${method} broke its schema: ${describeIssues(checked.error)}`);
      }
    }
    return result;
  }
}

function toRpcError(method: string, error: unknown, options: DispatcherOptions): RpcError {
  if (error instanceof RpcError) return error;
  options.onInternalError?.(method, error);
  const message = error instanceof Error ? error.message : String(error);
  return RpcError.internal(`internal error in ${method}: ${message}`);
}
