import type http from 'node:http';
import { z } from 'zod';
import type { DynamicToolCallParams, DynamicToolSpec, ServerRequestMethod } from '../../../shared/protocol/index.js';
import type { ClientConnection, OutgoingRequest } from '../../runtime/outgoing/outgoing-sender.js';
import type { CarrierRuntime } from '../../host/carrier-runtime.js';
import { HttpError, sendJson } from './http-errors.js';
import { parseBody, readJsonBody } from './request-body.js';

/** The owner id of threads created over HTTP: their tool calls are answered over HTTP. */
export const HTTP_OWNER = 'http';

/** Seed 004 DynamicToolSpec (snake_case), as registered with `POST /v1/threads`. */
export const HttpDynamicToolSpec = z
  .object({
    namespace: z.string().min(1).max(64).nullable().optional(),
    name: z.string().min(1).max(64),
    description: z.string().max(4096),
    input_schema: z.record(z.string(), z.unknown()),
    defer_loading: z.boolean().optional(),
  })
  .strict();

/** Seed 004 specs to Codex's: functions with a namespace are grouped under it, in first-seen order. */
export function codexToolSpecsOf(specs: readonly z.output<typeof HttpDynamicToolSpec>[]): DynamicToolSpec[] {
  const out: DynamicToolSpec[] = [];
  const namespaces = new Map<string, Extract<DynamicToolSpec, { type: 'namespace' }>>();
  for (const spec of specs) {
    const fn = {
      type: 'function' as const,
      name: spec.name,
      description: spec.description,
      inputSchema: spec.input_schema,
      ...(spec.defer_loading !== undefined ? { deferLoading: spec.defer_loading } : {}),
    };
    if (!spec.namespace) {
      out.push(fn);
      continue;
    }
    let group = namespaces.get(spec.namespace);
    if (!group) {
      group = { type: 'namespace', name: spec.namespace, description: `Tools of ${spec.namespace}`, tools: [] };
      namespaces.set(spec.namespace, group);
      out.push(group);
    }
    group.tools.push(fn);
  }
  return out;
}

/** Seed 004 DynamicToolCallResult; `turn_id`, when given, must name the call's turn. */
const ToolCallAnswer = z
  .object({
    success: z.boolean(),
    content: z
      .array(
        z.discriminatedUnion('type', [
          z.object({ type: z.literal('input_text'), text: z.string() }).strict(),
          z.object({ type: z.literal('input_image'), image_url: z.string() }).strict(),
        ]),
      )
      .max(100)
      .default([]),
    turn_id: z.string().optional(),
  })
  .strict();

const REMEMBERED_CALLS = 10_000;

/**
 * Client-side tool calls of threads created over HTTP. This carrier registers
 * one connection (`http`) with the OutgoingSender that can answer
 * `item/tool/call`; the core announces each call in the log
 * (`tool_call.requested`, seen on SSE) and the answer comes at
 * `POST /v1/threads/{id}/tool-calls/{call_id}`. The first answer wins; a
 * repeated or late answer, or one naming another turn, is refused with a
 * typed error.
 */
export class HttpToolCalls {
  /** Request ids of recent calls by thread and call id (answers name the call, the sender knows the request). */
  private readonly calls = new Map<string, { readonly requestId: string; readonly params: DynamicToolCallParams }>();
  private readonly detach: () => void;
  private closed = false;

  constructor(private readonly runtime: CarrierRuntime) {
    const connection: ClientConnection = {
      connectionId: HTTP_OWNER,
      get isOpen() {
        return true;
      },
      canAnswer: (method: ServerRequestMethod) => method === 'item/tool/call' && !this.closed,
      sendRequest: (request: OutgoingRequest) => this.remember(request),
      // HTTP clients read notifications from the log (SSE), not from this connection.
      sendNotification: () => undefined,
      unsentBytes: 0,
      onceDrained: (callback) => callback(),
    };
    this.detach = runtime.outgoing.attach(connection);
  }

  async answer(req: http.IncomingMessage, res: http.ServerResponse, threadId: string, callId: string): Promise<void> {
    const body = parseBody(ToolCallAnswer, await readJsonBody(req), 'tool call answer');
    this.runtime.threads.require(threadId);
    const call = this.calls.get(keyOf(threadId, callId));
    if (!call) throw new HttpError(404, 'tool_call_not_found', `no tool call ${callId} is waiting in thread ${threadId}`);
    const { outgoing } = this.runtime;
    if (!outgoing.isWaiting(call.requestId)) {
      throw new HttpError(409, 'tool_call_finished', `tool call ${callId} already ended (${outgoing.endingOf(call.requestId) ?? 'ended'})`);
    }
    if (body.turn_id !== undefined && body.turn_id !== call.params.turnId) {
      throw new HttpError(409, 'turn_mismatch', `tool call ${callId} belongs to turn ${call.params.turnId}, not ${body.turn_id}`);
    }
    const result = {
      success: body.success,
      contentItems: body.content.map((item) =>
        item.type === 'input_text' ? { type: 'inputText', text: item.text } : { type: 'inputImage', imageUrl: item.image_url },
      ),
    };
    const outcome = await outgoing.answer(HTTP_OWNER, { id: call.requestId, result });
    if (outcome.kind !== 'taken') throw new HttpError(409, 'tool_call_finished', `tool call ${callId}: ${outcome.error.message}`);
    sendJson(res, 200, { call_id: callId, status: 'answered' });
  }

  /** The HTTP API stops: calls only it could answer fail (`closed`). */
  close(): void {
    this.closed = true;
    this.detach();
  }

  private remember(request: OutgoingRequest): void {
    const params = request.params as DynamicToolCallParams;
    const key = keyOf(params.threadId, params.callId);
    this.calls.delete(key);
    this.calls.set(key, { requestId: request.id, params });
    if (this.calls.size > REMEMBERED_CALLS) {
      const oldest = this.calls.keys().next().value;
      if (oldest !== undefined) this.calls.delete(oldest);
    }
  }
}

function keyOf(threadId: string, callId: string): string {
  return `${threadId}\u0000${callId}`;
}
