import type { TokenUsageBreakdown, TurnFailure } from '../../shared/protocol/index.js';

/**
 * The provider-neutral model interface the turn engine talks to. Chat
 * Completions and Responses clients both implement it; the engine never sees
 * a wire format.
 */

/** Which HTTP API a provider speaks (Codex `wire_api`). */
export type WireApi = 'chat' | 'responses';

/** A fully resolved provider: built-in or from config.toml, with its key looked up. */
export interface ResolvedProvider {
  readonly id: string;
  readonly name: string;
  readonly baseUrl: string;
  readonly wireApi: WireApi;
  /** Environment variable that may hold the key (Codex `env_key`). */
  readonly envKey: string | null;
  /** The key, when one is needed and known; never logged or persisted by the model layer. */
  readonly apiKey: string | null;
  readonly requiresApiKey: boolean;
  readonly requestMaxRetries: number;
  readonly streamMaxRetries: number;
  readonly streamIdleTimeoutMs: number;
  /** Extra HTTP headers (Codex `http_headers`). */
  readonly httpHeaders: Readonly<Record<string, string>>;
}

export interface ModelToolCall {
  /** Provider's call id (Chat: tool_call.id; Responses: call_id). */
  readonly id: string;
  readonly name: string;
  /** JSON text exactly as the model produced it. */
  readonly arguments: string;
}

/** One message of conversation history, in the order the model should see it. */
export type ModelMessage =
  | { readonly role: 'user'; readonly content: string }
  | {
      readonly role: 'assistant';
      readonly content: string;
      /** DeepSeek thinking models require the reasoning of tool-calling turns to be sent back. */
      readonly reasoningContent?: string | null;
      readonly toolCalls?: readonly ModelToolCall[];
    }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly name: string; readonly content: string };

export interface ModelToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Readonly<Record<string, unknown>>;
}

export interface ModelRequest {
  readonly model: string;
  /** System/developer instructions; byte-stable across a thread so prompt caches hit. */
  readonly instructions: string;
  readonly messages: readonly ModelMessage[];
  /** Tools in a stable order (same reason). */
  readonly tools: readonly ModelToolSpec[];
  readonly signal: AbortSignal;
}

/** What a streaming reply yields, in order. Tool calls arrive complete. */
export type ModelStreamEvent =
  | { readonly type: 'textDelta'; readonly delta: string }
  /** Raw reasoning (Responses `reasoning_text`, Chat `reasoning_content`): part `contentIndex` of the reasoning item's `content`. */
  | { readonly type: 'reasoningDelta'; readonly delta: string; readonly contentIndex: number }
  /** A reasoning summary (Responses `reasoning_summary_part.added`) begins part `summaryIndex`. */
  | { readonly type: 'reasoningSummaryPart'; readonly summaryIndex: number }
  /** Text of reasoning summary part `summaryIndex`. */
  | { readonly type: 'reasoningSummaryDelta'; readonly delta: string; readonly summaryIndex: number }
  | { readonly type: 'toolCall'; readonly call: ModelToolCall }
  | { readonly type: 'usage'; readonly usage: TokenUsageBreakdown }
  | {
      readonly type: 'retrying';
      /** Retries so far, of both kinds. */
      readonly attempt: number;
      /** Which budget this retry is from (request: an HTTP or connection failure; stream: a stream that broke before any output), and its count. */
      readonly retry: { readonly kind: 'request' | 'stream'; readonly number: number; readonly max: number };
      readonly delayMs: number;
      readonly reason: string;
    }
  | { readonly type: 'done'; readonly finishReason: string | null };

export interface ModelInfo {
  readonly id: string;
  readonly displayName: string;
  readonly contextWindow: number | null;
  /** Whether the model streams reasoning (DeepSeek reasoner, o-series). */
  readonly reasoning: boolean;
}

/** A failure a person can understand: its cause (`kind`, one of a closed set) and one sentence saying what happened. */
export class ModelError extends Error {
  constructor(
    readonly kind: TurnFailure['kind'],
    message: string,
    readonly httpStatus: number | null = null,
    readonly details: string | null = null,
    /** The address that could not be reached (`cannotConnect`). */
    readonly address: string | null = null,
  ) {
    super(message);
    this.name = 'ModelError';
  }

  /** The same failure in other words (retry counts added, secrets removed). */
  reworded(message: string, details: string | null = this.details): ModelError {
    return new ModelError(this.kind, message, this.httpStatus, details, this.address);
  }

  toTurnError(): TurnFailure {
    return { kind: this.kind, message: this.message, httpStatus: this.httpStatus, additionalDetails: this.details, address: this.address };
  }
}

export interface ModelClient {
  /**
   * Streams one reply. Retries 429/5xx/connection failures per the provider's
   * `requestMaxRetries` before any output (yielding `retrying` events), and
   * throws ModelError on failure. Aborting `signal` ends the stream promptly.
   */
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
  /** The provider's model list (GET /models). Throws ModelError when unreachable. */
  listModels(signal: AbortSignal): Promise<ModelInfo[]>;
}

/** The model a turn talks to. */
export interface ModelBinding {
  readonly client: ModelClient;
  readonly model: string;
  /** The usable window reported in token usage (`modelContextWindow`): 95% of the model's, as Codex reports it. */
  readonly contextWindow: number | null;
}

/** Picks the client and model for a thread; throws ModelError('configuration') when it cannot. */
export type ModelBinder = (thread: { readonly modelProvider: string; readonly model: string | null }) => Promise<ModelBinding>;
