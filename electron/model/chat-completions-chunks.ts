import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { TokenUsageBreakdown } from '../../shared/protocol/index.js';
import { badShape } from './model-errors.js';
import type { ModelToolCall } from './types.js';

/**
 * The parts of a `chat.completion.chunk` we read, as sent by OpenAI and
 * OpenAI-compatible servers. Everything is optional/nullable because
 * providers differ; unknown fields are ignored.
 */
const ToolCallDelta = z.object({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const ChatUsage = z.object({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  total_tokens: z.number().nullish(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
  /** DeepSeek's name for cached prompt tokens. */
  prompt_cache_hit_tokens: z.number().nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
});

const ChatChunk = z.object({
  choices: z
    .array(
      z.object({
        index: z.number().nullish(),
        delta: z
          .object({
            content: z.string().nullish(),
            /** DeepSeek (and vLLM) thinking text. */
            reasoning_content: z.string().nullish(),
            /** Ollama / OpenRouter thinking text. */
            reasoning: z.string().nullish(),
            tool_calls: z.array(ToolCallDelta).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: ChatUsage.nullish(),
});

export type ChatChunk = z.infer<typeof ChatChunk>;
export type ChatToolCallDelta = z.infer<typeof ToolCallDelta>;

/** Parses one SSE data object; throws ModelError('badResponse') when its shape is wrong. */
export function parseChatChunk(data: unknown): ChatChunk {
  const parsed = ChatChunk.safeParse(data);
  if (!parsed.success) throw badShape('a reply chunk', `${parsed.error.message}\n${JSON.stringify(data).slice(0, 500)}`);
  return parsed.data;
}

/** Maps Chat usage (OpenAI or DeepSeek fields) to the protocol's breakdown. */
export function chatUsage(usage: z.infer<typeof ChatUsage>): TokenUsageBreakdown {
  const inputTokens = usage.prompt_tokens ?? 0;
  const outputTokens = usage.completion_tokens ?? 0;
  return {
    inputTokens,
    cachedInputTokens: usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0,
    // Chat Completions providers report cache reads only.
    cacheWriteInputTokens: 0,
    outputTokens,
    reasoningOutputTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
    totalTokens: usage.total_tokens ?? inputTokens + outputTokens,
  };
}

interface PartialCall {
  readonly index: number;
  id: string | null;
  name: string;
  arguments: string;
}

/**
 * Assembles streamed tool-call fragments into complete calls. Fragments are
 * keyed by `index` (OpenAI, DeepSeek); providers that omit it are matched by
 * `id`, else continue the latest call.
 */
export class ToolCallAssembler {
  private readonly calls: PartialCall[] = [];

  add(delta: ChatToolCallDelta): void {
    const call = this.target(delta);
    if (delta.id) call.id = delta.id;
    // Sent whole in the first fragment; some servers repeat it, so it is set once.
    if (delta.function?.name && call.name === '') call.name = delta.function.name;
    if (delta.function?.arguments) call.arguments += delta.function.arguments;
  }

  /** The complete calls in index order; throws ModelError when one has no name. */
  finish(): ModelToolCall[] {
    const done = [...this.calls].sort((a, b) => a.index - b.index);
    this.calls.length = 0;
    return done.map((call) => {
      if (call.name === '') throw badShape('a tool call without a name', JSON.stringify(call));
      return { id: call.id ?? `call_${randomUUID()}`, name: call.name, arguments: call.arguments };
    });
  }

  private target(delta: ChatToolCallDelta): PartialCall {
    const byIndex = typeof delta.index === 'number' ? this.calls.find((c) => c.index === delta.index) : undefined;
    if (byIndex) return byIndex;
    const byId = delta.id ? this.calls.find((c) => c.id === delta.id) : undefined;
    if (byId) return byId;
    const latest = this.calls.at(-1);
    if (typeof delta.index !== 'number' && !delta.id && latest) return latest;
    const index = delta.index ?? (latest ? latest.index + 1 : 0);
    const created: PartialCall = { index, id: null, name: '', arguments: '' };
    this.calls.push(created);
    return created;
  }
}
