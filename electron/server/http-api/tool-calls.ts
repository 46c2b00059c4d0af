import type http from 'node:http';
import { z } from 'zod';
import {
  ServerRequestError,
  type DynamicToolCallParams,
  type DynamicToolCallResponse,
  type DynamicToolSpec,
} from '../../../shared/protocol/index.js';
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

interface PendingCall {
  readonly params: DynamicToolCallParams;
  settle(answer: DynamicToolCallResponse | ServerRequestError): void;
}

const REMEMBERED_ENDINGS = 10_000;

/**
 * Client-side tool calls of threads created over HTTP: each is announced
 * as a `tool_call.requested` event (SSE) and waits for its answer at
 * `POST /v1/threads/{id}/tool-calls/{call_id}`. The first answer wins; a
 * repeated or late answer, or one naming another turn, is refused with a
 * typed error.
 */
export class HttpToolCalls {
  private readonly pending = new Map<string, PendingCall>();
  /** How recent calls ended, so a late or repeated answer gets a clear 409 instead of a 404. */
  private readonly endings = new Map<string, string>();
  private readonly removeRequester: () => void;

  constructor(private readonly runtime: CarrierRuntime) {
    this.removeRequester = runtime.clientTools.addRequester((owner, params, options) =>
      owner === HTTP_OWNER ? this.request(params, options) : null,
    );
  }

  async answer(req: http.IncomingMessage, res: http.ServerResponse, threadId: string, callId: string): Promise<void> {
    const body = parseBody(ToolCallAnswer, await readJsonBody(req), 'tool call answer');
    this.runtime.threads.require(threadId);
    const key = keyOf(threadId, callId);
    const call = this.pending.get(key);
    if (!call) {
      const ended = this.endings.get(key);
      if (ended) throw new HttpError(409, 'tool_call_finished', `tool call ${callId} already ended (${ended})`);
      throw new HttpError(404, 'tool_call_not_found', `no tool call ${callId} is waiting in thread ${threadId}`);
    }
    if (body.turn_id !== undefined && body.turn_id !== call.params.turnId) {
      throw new HttpError(409, 'turn_mismatch', `tool call ${callId} belongs to turn ${call.params.turnId}, not ${body.turn_id}`);
    }
    call.settle({
      success: body.success,
      contentItems: body.content.map((item) =>
        item.type === 'input_text' ? { type: 'inputText', text: item.text } : { type: 'inputImage', imageUrl: item.image_url },
      ),
    });
    sendJson(res, 200, { call_id: callId, status: 'answered' });
  }

  close(): void {
    this.removeRequester();
    for (const call of [...this.pending.values()]) call.settle(new ServerRequestError('closed', 'the HTTP API stopped'));
  }

  private request(params: DynamicToolCallParams, options: { timeoutMs: number; signal: AbortSignal }): Promise<DynamicToolCallResponse> {
    const key = keyOf(params.threadId, params.callId);
    return new Promise<DynamicToolCallResponse>((resolve, reject) => {
      const onAbort = () => settle(new ServerRequestError('canceled', 'the tool call was canceled (turn stopped)'));
      const timer = setTimeout(
        () => settle(new ServerRequestError('timeout', `the client did not answer within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
      const settle = (outcome: DynamicToolCallResponse | ServerRequestError) => {
        if (this.pending.get(key)?.settle !== settle) return;
        this.pending.delete(key);
        clearTimeout(timer);
        options.signal.removeEventListener('abort', onAbort);
        this.remember(key, outcome instanceof ServerRequestError ? outcome.reason : 'answered');
        if (outcome instanceof ServerRequestError) reject(outcome);
        else resolve(outcome);
      };
      this.endings.delete(key);
      this.pending.set(key, { params, settle });
      if (options.signal.aborted) return onAbort();
      options.signal.addEventListener('abort', onAbort, { once: true });
      const { record } = this.runtime.threads.require(params.threadId);
      this.runtime.events.publish('tool_call.requested', params, {
        threadId: params.threadId,
        turnId: params.turnId,
        ephemeral: record.ephemeral,
      });
    });
  }

  private remember(key: string, how: string): void {
    this.endings.set(key, how);
    if (this.endings.size > REMEMBERED_ENDINGS) {
      const oldest = this.endings.keys().next().value;
      if (oldest !== undefined) this.endings.delete(oldest);
    }
  }
}

function keyOf(threadId: string, callId: string): string {
  return `${threadId}\u0000${callId}`;
}
