import type { TokenUsageBreakdown } from '../../shared/protocol/index.js';
import { buildChatRequestBody } from './chat-completions-request.js';
import { chatUsage, parseChatChunk, ToolCallAssembler } from './chat-completions-chunks.js';
import { listModels } from './list-models.js';
import { StreamDropError } from './model-errors.js';
import { ProviderConnection } from './provider-connection.js';
import { streamWithRetries } from './stream-with-retries.js';
import type { ModelClient, ModelInfo, ModelRequest, ModelStreamEvent, ResolvedProvider } from './types.js';

/**
 * ModelClient for the Chat Completions wire (`POST {baseUrl}/chat/completions`,
 * streamed): OpenAI, DeepSeek, Ollama, LM Studio and other compatible servers.
 *
 * Events: `delta.content` -> textDelta; `delta.reasoning_content` (DeepSeek) or
 * `delta.reasoning` -> reasoningDelta (raw reasoning); tool-call fragments are assembled and
 * yielded complete when `finish_reason` arrives; the usage chunk -> usage;
 * then done with the finish reason. A stream that closes without a
 * finish_reason is a drop (retried before output, else streamInterrupted).
 * Aborting the request's signal throws the signal's reason.
 */
export class ChatCompletionsClient implements ModelClient {
  private readonly connection: ProviderConnection;

  constructor(private readonly provider: ResolvedProvider) {
    this.connection = new ProviderConnection(provider);
  }

  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const body = buildChatRequestBody(request);
    return streamWithRetries(this.provider, request.signal, () => this.attempt(body, request.signal));
  }

  listModels(signal: AbortSignal): Promise<ModelInfo[]> {
    return listModels(this.connection, signal);
  }

  private async *attempt(body: unknown, signal: AbortSignal): AsyncGenerator<ModelStreamEvent> {
    const toolCalls = new ToolCallAssembler();
    let finishReason: string | null = null;
    let usage: TokenUsageBreakdown | null = null;
    try {
      for await (const data of this.connection.openSse('/chat/completions', body, signal)) {
        const chunk = parseChatChunk(data);
        if (chunk.usage) usage = chatUsage(chunk.usage);
        // One completion was asked for (no `n`); other choices would be a provider bug.
        const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
        if (!choice) continue;
        const reasoning = choice.delta?.reasoning_content ?? choice.delta?.reasoning;
        // Raw reasoning, as Codex's chat wire treats it (never a summary).
        if (reasoning) yield { type: 'reasoningDelta', delta: reasoning, contentIndex: 0 };
        if (choice.delta?.content) yield { type: 'textDelta', delta: choice.delta.content };
        for (const delta of choice.delta?.tool_calls ?? []) toolCalls.add(delta);
        if (choice.finish_reason && finishReason === null) {
          finishReason = choice.finish_reason;
          for (const call of toolCalls.finish()) yield { type: 'toolCall', call };
        }
      }
    } catch (error) {
      // After finish_reason the reply is complete; only the trailing usage chunk / [DONE] was lost.
      if (!(error instanceof StreamDropError && finishReason !== null)) throw error;
    }
    if (finishReason === null) throw new StreamDropError('ended', this.provider.streamIdleTimeoutMs);
    if (usage) yield { type: 'usage', usage };
    yield { type: 'done', finishReason };
  }
}
