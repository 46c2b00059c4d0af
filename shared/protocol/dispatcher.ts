import { serializationKeyOf, type MethodSpec } from './define.js';
import { ErrorCode, RpcError } from './errors.js';
import { builtTables, loadTables, type ProtocolTables } from './lazy-registry.js';
import { plainInitializeParams } from './methods/plain-initialize.js';
import type { ClientMethod, HandlerParamsOf, ParamsOf, ResultOf } from './registry.js';
import { SerialQueues } from './serial-queues.js';
import { assertParamsBounded, describeIssues, parseParams } from './validation.js';
import type { RequestMessage, ResponseMessage } from './wire.js';

type Awaitable<T> = T | Promise<T>;

/** One handler per declared method; the compiler rejects a missing one. */
export type MethodHandlers<Ctx> = {
  readonly [M in ClientMethod]: (params: HandlerParamsOf<M>, ctx: Ctx) => Awaitable<ResultOf<M>>;
};

/** A handler per method, looked up when a request comes (a host whose handlers depend on the method, not on a table). */
export type HandlerLookup<Ctx> = <M extends ClientMethod>(method: M) => MethodHandlers<Ctx>[M];

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
  private readonly handlerOf: HandlerLookup<Ctx>;
  /** Results of `initialize` answered before the schemas loaded, to check once they have. */
  private uncheckedInitializeResults: unknown[] = [];

  constructor(
    handlers: MethodHandlers<Ctx> | HandlerLookup<Ctx>,
    private readonly options: DispatcherOptions = {},
  ) {
    this.handlerOf = typeof handlers === 'function' ? handlers : (method) => handlers[method];
  }

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
    // `initialize` comes first on every connection: as clients send it, it is answered without waiting
    // for zod and every method's schemas to load (plain-initialize.ts); anything else goes through its schema.
    const plain = method === 'initialize' ? plainInitialize(params) : null;
    if (plain) return this.answerPlainInitialize(plain, ctx);
    const tables = builtTables() ?? (await loadTables());
    if (this.uncheckedInitializeResults.length > 0) this.checkInitializeResults(tables);
    if (!Object.prototype.hasOwnProperty.call(tables.clientMethods, method)) {
      throw new RpcError(ErrorCode.MethodNotFound, `unknown method: ${method}`);
    }
    const spec: MethodSpec = tables.clientMethods[method as ClientMethod];
    const parsed = parseParams(spec.params, method, params);
    const handler = this.handlerOf(method as ClientMethod) as (p: unknown, c: Ctx) => Awaitable<unknown>;
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

  /**
   * `initialize` with params recognised without zod. Its result is checked (when results are) once the
   * schemas load, for the next other request: a broken one is reported through `onInternalError`.
   */
  private async answerPlainInitialize(params: HandlerParamsOf<'initialize'>, ctx: Ctx): Promise<ResultOf<'initialize'>> {
    const result = await this.handlerOf('initialize')(params, ctx);
    if (this.options.validateResults) this.uncheckedInitializeResults.push(result);
    return result;
  }

  private checkInitializeResults(tables: ProtocolTables): void {
    const results = this.uncheckedInitializeResults;
    this.uncheckedInitializeResults = [];
    for (const result of results) {
      const checked = tables.clientMethods.initialize.result.safeParse(result);
      if (!checked.success) {
        this.options.onInternalError?.('initialize', new Error(`result of initialize broke its schema: ${describeIssues(checked.error)}`));
      }
    }
  }
}

/** Params of `initialize` as parsed without zod, after the same bounds every request gets; null: parse with the schema. */
function plainInitialize(params: unknown): HandlerParamsOf<'initialize'> | null {
  assertParamsBounded('initialize', params);
  return plainInitializeParams(params);
}

function toRpcError(method: string, error: unknown, options: DispatcherOptions): RpcError {
  if (error instanceof RpcError) return error;
  options.onInternalError?.(method, error);
  const message = error instanceof Error ? error.message : String(error);
  return RpcError.internal(`internal error in ${method}: ${message}`);
}
