import type http from 'node:http';
import type { ClientMethod, ParamsOf, ResultOf } from '../../../shared/protocol/index.js';
import { ThreadSetNameParams } from '../../../shared/protocol/methods/thread.js';
import type { CarrierRuntime } from '../../host/carrier-runtime.js';
import { toSnakeKeys } from './case-keys.js';
import { HttpError, sendJson } from './http-errors.js';
import {
  CreateThreadBody,
  ForkThreadBody,
  ListThreadsQuery,
  PatchThreadBody,
  StartTurnBody,
  SteerTurnBody,
  userInputOf,
} from './http-bodies.js';
import { IdempotentTurns } from './idempotent-turns.js';
import { codexToolSpecsOf, HTTP_OWNER } from './tool-calls.js';
import { parseBody, readJsonBody } from './request-body.js';

/** Calls a protocol method through the runtime's dispatcher, exactly as a JSON-RPC client would. */
export type CallMethod = <M extends ClientMethod>(method: M, params: ParamsOf<M>) => Promise<ResultOf<M>>;

export function callerFor(runtime: CarrierRuntime): CallMethod {
  // One owner for every HTTP client: a thread's tool calls are answered by whoever holds the token.
  return (method, params) =>
    runtime.dispatcher.call(method, params, {
      session: { connectionId: HTTP_OWNER, carrier: 'http', clientInfo: null, optOut: new Set() },
    });
}

type StartedTurn = { thread: unknown; turn: unknown };

/** Thread and turn endpoints: each maps snake_case to the runtime's handler and back. */
export class ThreadRoutes {
  private readonly idempotent = new IdempotentTurns<StartedTurn>();

  constructor(
    private readonly runtime: CarrierRuntime,
    private readonly call: CallMethod,
  ) {}

  async list(res: http.ServerResponse, query: URLSearchParams): Promise<void> {
    const params = parseBody(ListThreadsQuery, Object.fromEntries(query), 'query');
    const result = await this.call('thread/list', {
      ...(params.archived === 'true' ? { archived: true } : {}),
      ...(params.limit !== undefined ? { limit: params.limit } : {}),
      ...(params.cursor !== undefined ? { cursor: params.cursor } : {}),
    });
    sendJson(res, 200, toSnakeKeys(result));
  }

  async create(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = parseBody(CreateThreadBody, await readJsonBody(req), 'thread');
    const { thread } = await this.call('thread/start', {
      cwd: body.cwd ?? null,
      model: body.model ?? null,
      modelProvider: body.provider ?? null,
      ephemeral: body.ephemeral ?? null,
      dynamicTools: codexToolSpecsOf(body.dynamic_tools ?? []),
    });
    sendJson(res, 201, { thread: toSnakeKeys(thread) });
  }

  async get(res: http.ServerResponse, threadId: string): Promise<void> {
    const read = await this.call('thread/read', { threadId, includeTurns: true });
    // Read together with the thread (no await between), so subscribing from it leaves no gap.
    const latestSeq = this.runtime.events.lastSeq;
    sendJson(res, 200, { thread: toSnakeKeys(read.thread), latest_seq: latestSeq });
  }

  async patch(req: http.IncomingMessage, res: http.ServerResponse, threadId: string): Promise<void> {
    const body = parseBody(PatchThreadBody, await readJsonBody(req), 'thread patch');
    // Check the name by the protocol's own rules first, and archive (which a running turn refuses)
    // before renaming, so a refused patch changes nothing.
    if (body.name !== undefined) parseBody(ThreadSetNameParams, { threadId, name: body.name }, 'thread patch');
    await this.call('thread/read', { threadId });
    if (body.archived === true) await this.call('thread/archive', { threadId });
    if (body.archived === false) await this.call('thread/unarchive', { threadId });
    if (body.name !== undefined) await this.call('thread/name/set', { threadId, name: body.name });
    const { thread } = await this.call('thread/read', { threadId });
    sendJson(res, 200, { thread: toSnakeKeys(thread) });
  }

  async fork(req: http.IncomingMessage, res: http.ServerResponse, threadId: string): Promise<void> {
    const body = parseBody(ForkThreadBody, await readJsonBody(req), 'fork');
    const { thread } = await this.call('thread/fork', {
      threadId,
      lastTurnId: body.last_turn_id ?? null,
      cwd: body.cwd ?? null,
      model: body.model ?? null,
      modelProvider: body.provider ?? null,
      ephemeral: body.ephemeral ?? null,
    });
    sendJson(res, 201, { thread: toSnakeKeys(thread) });
  }

  async startTurn(req: http.IncomingMessage, res: http.ServerResponse, threadId: string): Promise<void> {
    const body = parseBody(StartTurnBody, await readJsonBody(req), 'turn');
    const header = req.headers['idempotency-key'];
    const key = (Array.isArray(header) ? header[0] : header) ?? body.idempotency_key;
    if (key !== undefined && (key.length === 0 || key.length > 200)) {
      throw new HttpError(400, 'invalid_params', 'Idempotency-Key must be 1 to 200 characters');
    }
    const start = async (): Promise<StartedTurn> => {
      const tools = codexToolSpecsOf(body.dynamic_tools ?? []);
      // Registered before the turn starts (its first model request offers them); undone if it cannot start.
      const undoTools = tools.length > 0 ? await this.runtime.clientTools.add(threadId, tools) : undefined;
      if (undoTools) this.runtime.clientTools.claim(threadId, HTTP_OWNER);
      let turn;
      try {
        ({ turn } = await this.call('turn/start', {
          threadId,
          input: userInputOf(body.input),
          model: body.model ?? null,
          cwd: body.environment?.cwd ?? null,
        }));
      } catch (error) {
        undoTools?.();
        throw error;
      }
      const { thread } = await this.call('thread/read', { threadId });
      return { thread: toSnakeKeys(thread), turn: toSnakeKeys(turn) };
    };
    const { idempotency_key: _key, ...request } = body;
    const started = key === undefined ? await start() : await this.idempotent.run(threadId, key, request, start);
    sendJson(res, 201, started);
  }

  async steer(req: http.IncomingMessage, res: http.ServerResponse, threadId: string, turnId: string): Promise<void> {
    const body = parseBody(SteerTurnBody, await readJsonBody(req), 'steer');
    const result = await this.call('turn/steer', { threadId, expectedTurnId: turnId, input: userInputOf(body.input) });
    sendJson(res, 200, toSnakeKeys(result));
  }

  async interrupt(res: http.ServerResponse, threadId: string, turnId: string): Promise<void> {
    await this.call('turn/interrupt', { threadId, turnId });
    sendJson(res, 200, {});
  }
}
