import { listModels } from './list-models.js';
import { badShape, StreamDropError, streamedProviderError } from './model-errors.js';
import { ProviderConnection } from './provider-connection.js';
import { buildResponsesRequestBody } from './responses-request.js';
import { incompleteFinishReason, parseResponsesEvent, responsesUsage } from './responses-events.js';
import { streamWithRetries } from './stream-with-retries.js';
import type { ModelClient, ModelInfo, ModelRequest, ModelStreamEvent, ResolvedProvider } from './types.js';

/**
 * ModelClient for the OpenAI Responses wire (`POST {baseUrl}/responses`,
 * streamed, store:false).
 *
 * Events: response.output_text.delta -> textDelta; a reasoning summary's
 * parts and deltas -> reasoningSummaryPart / reasoningSummaryDelta (with
 * their index, as Codex streams them); raw reasoning text deltas ->
 * reasoningDelta; a finished function_call output item -> toolCall;
 * response.completed / response.incomplete -> usage + done (finish reason
 * in Chat terms: 'stop', 'tool_calls', 'length'); response.failed and
 * `error` events -> ModelError. A stream that closes before
 * completed/incomplete/failed is a drop (retried before output, else
 * streamInterrupted). Aborting the request's signal throws the signal's reason.
 */
export class ResponsesClient implements ModelClient {
  private readonly connection: ProviderConnection;

  constructor(private readonly provider: ResolvedProvider) {
    this.connection = new ProviderConnection(provider);
  }

  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const body = buildResponsesRequestBody(request);
    return streamWithRetries(this.provider, request.signal, () => this.attempt(body, request.signal));
  }

  listModels(signal: AbortSignal): Promise<ModelInfo[]> {
    return listModels(this.connection, signal);
  }

  private async *attempt(body: unknown, signal: AbortSignal): AsyncGenerator<ModelStreamEvent> {
    let sawToolCall = false;
    for await (const data of this.connection.openSse('/responses', body, signal)) {
      const event = parseResponsesEvent(data);
      if (event === null) continue;
      switch (event.type) {
        case 'response.output_text.delta':
          if (event.delta) yield { type: 'textDelta', delta: event.delta };
          break;
        case 'response.reasoning_summary_text.delta':
          if (event.delta) yield { type: 'reasoningSummaryDelta', delta: event.delta, summaryIndex: event.summary_index ?? 0 };
          break;
        case 'response.reasoning_text.delta':
          if (event.delta) yield { type: 'reasoningDelta', delta: event.delta, contentIndex: event.content_index ?? 0 };
          break;
        case 'response.reasoning_summary_part.added':
          yield { type: 'reasoningSummaryPart', summaryIndex: event.summary_index };
          break;
        case 'response.output_item.done': {
          const item = event.item;
          if (item.type !== 'function_call') break;
          if (!item.call_id || !item.name) throw badShape('a function call without call_id or name', JSON.stringify(item));
          sawToolCall = true;
          yield { type: 'toolCall', call: { id: item.call_id, name: item.name, arguments: item.arguments ?? '' } };
          break;
        }
        case 'response.completed':
        case 'response.incomplete': {
          const usage = event.response.usage;
          if (usage) yield { type: 'usage', usage: responsesUsage(usage) };
          const finishReason =
            event.type === 'response.incomplete'
              ? incompleteFinishReason(event.response.incomplete_details?.reason)
              : sawToolCall
                ? 'tool_calls'
                : 'stop';
          yield { type: 'done', finishReason };
          return;
        }
        case 'response.failed': {
          const error = event.response.error;
          throw streamedProviderError(error?.code ?? null, error?.message ?? 'the response failed without a reason');
        }
        case 'error':
          throw streamedProviderError(event.code ?? null, event.message);
        default: {
          const unreachable: never = event;
          throw new Error(`unhandled responses event ${JSON.stringify(unreachable)}`);
        }
      }
    }
    throw new StreamDropError('ended', this.provider.streamIdleTimeoutMs);
  }
}
