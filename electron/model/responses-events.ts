import { z } from 'zod';
import type { TokenUsageBreakdown } from '../../shared/protocol/index.js';
import { badShape } from './model-errors.js';

/**
 * The Responses API stream events we act on, with just the fields we read.
 * Every other event type (item added, part done, annotations, …) is skipped.
 */
const ResponsesUsage = z.object({
  input_tokens: z.number(),
  input_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
  output_tokens: z.number(),
  output_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
  total_tokens: z.number().nullish(),
});

const FinishedResponse = z.object({
  usage: ResponsesUsage.nullish(),
  incomplete_details: z.object({ reason: z.string().nullish() }).nullish(),
});

const ResponsesEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('response.output_text.delta'), delta: z.string() }),
  z.object({ type: z.literal('response.reasoning_summary_text.delta'), delta: z.string() }),
  z.object({ type: z.literal('response.reasoning_text.delta'), delta: z.string() }),
  z.object({ type: z.literal('response.reasoning_summary_part.added'), summary_index: z.number() }),
  z.object({
    type: z.literal('response.output_item.done'),
    item: z.object({
      type: z.string(),
      call_id: z.string().nullish(),
      name: z.string().nullish(),
      arguments: z.string().nullish(),
    }),
  }),
  z.object({ type: z.literal('response.completed'), response: FinishedResponse }),
  z.object({ type: z.literal('response.incomplete'), response: FinishedResponse }),
  z.object({
    type: z.literal('response.failed'),
    response: z.object({ error: z.object({ code: z.string().nullish(), message: z.string() }).nullish() }),
  }),
  z.object({ type: z.literal('error'), code: z.string().nullish(), message: z.string() }),
]);

export type ResponsesEvent = z.infer<typeof ResponsesEvent>;
type ResponsesEventType = ResponsesEvent['type'];

const HANDLED: ReadonlySet<string> = new Set<ResponsesEventType>([
  'response.output_text.delta',
  'response.reasoning_summary_text.delta',
  'response.reasoning_text.delta',
  'response.reasoning_summary_part.added',
  'response.output_item.done',
  'response.completed',
  'response.incomplete',
  'response.failed',
  'error',
]);

const EventHead = z.object({ type: z.string() });

/** Parses one SSE data object: an event we act on, null for one we skip; throws ModelError('badResponse') on a wrong shape. */
export function parseResponsesEvent(data: unknown): ResponsesEvent | null {
  const head = EventHead.safeParse(data);
  if (!head.success) throw badShape('a stream event without a type', JSON.stringify(data).slice(0, 500));
  if (!HANDLED.has(head.data.type)) return null;
  const parsed = ResponsesEvent.safeParse(data);
  if (!parsed.success) {
    throw badShape(`a "${head.data.type}" event`, `${parsed.error.message}\n${JSON.stringify(data).slice(0, 500)}`);
  }
  return parsed.data;
}

/** Maps Responses usage to the protocol's breakdown. */
export function responsesUsage(usage: z.infer<typeof ResponsesUsage>): TokenUsageBreakdown {
  return {
    inputTokens: usage.input_tokens,
    cachedInputTokens: usage.input_tokens_details?.cached_tokens ?? 0,
    // The Responses API reports cache reads only.
    cacheWriteInputTokens: 0,
    outputTokens: usage.output_tokens,
    reasoningOutputTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
    totalTokens: usage.total_tokens ?? usage.input_tokens + usage.output_tokens,
  };
}

/** The Chat-style finish reason of an incomplete response (`max_output_tokens` -> 'length'). */
export function incompleteFinishReason(reason: string | null | undefined): string {
  if (reason === 'max_output_tokens') return 'length';
  return reason ?? 'incomplete';
}
