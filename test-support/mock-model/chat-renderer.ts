import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import {
  defaultFinishReason,
  splitText,
  type MockContentStep,
  type MockToolCall,
  type MockUsage,
  type WireRenderer,
} from './script.js';

/** DeepSeek adds `reasoning_content` beside `content` in chunk deltas. */
type Delta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null };
/** DeepSeek reports cache hits with its own top-level usage fields. */
type Usage = CompletionUsage & { prompt_cache_hit_tokens?: number; prompt_cache_miss_tokens?: number };
type Chunk = Omit<ChatCompletionChunk, 'choices' | 'usage'> & {
  choices: Array<Omit<ChatCompletionChunk.Choice, 'delta'> & { delta: Delta }>;
  usage?: Usage | null;
};
type ToolCallDelta = ChatCompletionChunk.Choice.Delta.ToolCall;

export interface ChatRendererOptions {
  readonly id: string;
  readonly model: string;
  /** The request asked for `stream_options.include_usage`. */
  readonly includeUsage: boolean;
}

/**
 * Renders script steps as OpenAI Chat Completions stream chunks
 * (`data: {chat.completion.chunk}` frames, usage chunk with empty choices,
 * `data: [DONE]`), in the shapes the OpenAI and DeepSeek APIs send.
 */
export class ChatRenderer implements WireRenderer {
  private readonly created = Math.floor(Date.now() / 1000);
  private sentRole = false;
  private nextToolIndex = 0;
  private sawToolCalls = false;

  constructor(private readonly options: ChatRendererOptions) {}

  render(step: MockContentStep): readonly string[] {
    switch (step.type) {
      case 'text':
        return this.withRole([this.delta({ content: step.text })]);
      case 'reasoning':
        return this.withRole([this.delta({ content: null, reasoning_content: step.text })]);
      case 'toolCalls':
        this.sawToolCalls = true;
        return this.withRole(this.toolCallChunks(step.calls, step.interleave === true));
      case 'finish':
        return this.finish(step.reason ?? defaultFinishReason(this.sawToolCalls), step.usage);
      case 'providerError':
        return [frame({ error: { message: step.message, type: 'server_error', param: null, code: step.code ?? null } })];
      default: {
        const unreachable: never = step;
        throw new Error(`unknown content step ${JSON.stringify(unreachable)}`);
      }
    }
  }

  malformed(): string {
    return 'data: {"id":"chatcmpl-broken","choices":[{"delta":{"content":"unterminated\n\n';
  }

  private withRole(frames: string[]): string[] {
    if (this.sentRole) return frames;
    this.sentRole = true;
    return [this.delta({ role: 'assistant', content: '', refusal: null }), ...frames];
  }

  private toolCallChunks(calls: readonly MockToolCall[], interleave: boolean): string[] {
    const planned = calls.map((call) => ({
      index: this.nextToolIndex++,
      call,
      pieces: splitText(call.arguments, call.argumentChunks ?? 1),
    }));
    const header = (index: number, call: MockToolCall): ToolCallDelta => ({
      index,
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: '' },
    });
    const piece = (index: number, text: string): ToolCallDelta => ({ index, function: { arguments: text } });
    if (!interleave) {
      return planned.flatMap(({ index, call, pieces }) => [
        this.delta({ tool_calls: [header(index, call)] }),
        ...pieces.map((text) => this.delta({ tool_calls: [piece(index, text)] })),
      ]);
    }
    const frames = planned.map(({ index, call }) => this.delta({ tool_calls: [header(index, call)] }));
    const rounds = Math.max(...planned.map((p) => p.pieces.length));
    for (let round = 0; round < rounds; round++) {
      for (const { index, pieces } of planned) {
        const text = pieces[round];
        if (text !== undefined) frames.push(this.delta({ tool_calls: [piece(index, text)] }));
      }
    }
    return frames;
  }

  private finish(reason: ChatCompletionChunk.Choice['finish_reason'], usage: MockUsage | undefined): string[] {
    const frames = [frame(this.chunk([{ index: 0, delta: {}, finish_reason: reason, logprobs: null }]))];
    if (this.options.includeUsage) {
      frames.push(frame({ ...this.chunk([]), usage: renderUsage(usage ?? { inputTokens: 0, outputTokens: 0 }) }));
    }
    frames.push('data: [DONE]\n\n');
    return this.withRole(frames);
  }

  private delta(delta: Delta): string {
    return frame(this.chunk([{ index: 0, delta, finish_reason: null, logprobs: null }]));
  }

  private chunk(choices: Chunk['choices']): Chunk {
    return {
      id: this.options.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.options.model,
      system_fingerprint: 'fp_mock',
      choices,
    };
  }
}

function renderUsage(usage: MockUsage): Usage {
  const cached = usage.cachedInputTokens ?? 0;
  const base = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
  if (usage.style === 'deepseek') {
    return { ...base, prompt_cache_hit_tokens: cached, prompt_cache_miss_tokens: usage.inputTokens - cached };
  }
  return { ...base, prompt_tokens_details: { cached_tokens: cached } };
}

function frame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}
