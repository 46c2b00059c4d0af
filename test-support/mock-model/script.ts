/**
 * The wire-neutral script language of the mock model server. A script is the
 * list of steps that answers ONE request; the server renders content steps as
 * Chat Completions chunks or Responses events depending on the endpoint hit,
 * and carries out control steps (timing and failures) itself.
 */

/** A tool call the scripted model makes; `argumentChunks` splits the JSON text over that many deltas. */
export interface MockToolCall {
  readonly id: string;
  readonly name: string;
  /** Responses wire: the namespace tool the function belongs to (Codex offers MCP tools as `mcp__<server>` namespaces). */
  readonly namespace?: string;
  readonly arguments: string;
  readonly argumentChunks?: number;
}

/** Token counts reported at the end of a reply; `style` picks OpenAI or DeepSeek usage fields on the chat wire. */
export interface MockUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens?: number;
  readonly reasoningTokens?: number;
  readonly style?: 'openai' | 'deepseek';
}

export type MockFinishReason = 'stop' | 'tool_calls' | 'length';

/** Steps that produce protocol output, rendered per wire. */
export type MockContentStep =
  | { readonly type: 'text'; readonly text: string }
  /** `format: 'raw'` renders Responses `reasoning_text` instead of a reasoning summary (chat always uses reasoning_content). */
  | { readonly type: 'reasoning'; readonly text: string; readonly format?: 'summary' | 'raw' }
  /** Several calls in one step are parallel calls; `interleave` mixes their argument deltas (chat wire only). */
  | { readonly type: 'toolCalls'; readonly calls: readonly MockToolCall[]; readonly interleave?: boolean }
  /** Ends the reply properly: finish chunk + usage + `[DONE]` on chat, `response.completed`/`incomplete` on Responses. */
  | { readonly type: 'finish'; readonly reason?: MockFinishReason; readonly usage?: MockUsage }
  /** An error reported inside a 200 stream (chat `{"error":…}` chunk; Responses `error` event or `response.failed`). */
  | {
      readonly type: 'providerError';
      readonly message: string;
      readonly code?: string;
      readonly responsesAs?: 'error' | 'failed';
    };

/** Steps the server carries out itself: timing, transport failures, HTTP errors. */
export type MockControlStep =
  | { readonly type: 'delay'; readonly ms: number }
  /** Pauses until the promise settles (or the client goes away): for interrupt and steer tests. */
  | { readonly type: 'waitFor'; readonly release: Promise<unknown> }
  /** Sends nothing more until the client disconnects: for idle-timeout tests. */
  | { readonly type: 'stall' }
  /** Destroys the socket mid-stream without ending the HTTP response. */
  | { readonly type: 'cut' }
  /** Sends one SSE event whose data is not valid JSON. */
  | { readonly type: 'malformed' }
  /** Answers with this HTTP status and an OpenAI-shaped error body; must be the last step, after no content. */
  | {
      readonly type: 'httpError';
      readonly status: number;
      readonly message?: string;
      readonly code?: string;
      /** Sent as the `Retry-After` header. */
      readonly retryAfter?: string;
    };

export type MockStep = MockContentStep | MockControlStep;

/** The steps answering one request. */
export type MockScript = readonly MockStep[];

/**
 * A script written when its request arrives, from what the request offers (as
 * a model names a tool the way the request declared it); validated then.
 */
export type MockScriptFactory = (request: { readonly body: Readonly<Record<string, unknown>> }) => MockScript;

/** Turns content steps into SSE frames for one wire; one instance per request. */
export interface WireRenderer {
  render(step: MockContentStep): readonly string[];
  /** One SSE frame whose data is not JSON. */
  malformed(): string;
}

/** Whether a step is rendered by the wire renderer (as opposed to carried out by the server). */
export function isContentStep(step: MockStep): step is MockContentStep {
  switch (step.type) {
    case 'text':
    case 'reasoning':
    case 'toolCalls':
    case 'finish':
    case 'providerError':
      return true;
    case 'delay':
    case 'waitFor':
    case 'stall':
    case 'cut':
    case 'malformed':
    case 'httpError':
      return false;
    default: {
      const unreachable: never = step;
      throw new Error(`unknown mock step ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Rejects scripts the server could not carry out faithfully (an HTTP status after bytes were sent). */
export function validateScript(script: MockScript): void {
  const errorIndex = script.findIndex((step) => step.type === 'httpError');
  if (errorIndex === -1) return;
  if (errorIndex !== script.length - 1) throw new Error('mock script: httpError must be the last step');
  const before = script.slice(0, errorIndex);
  if (before.some((step) => step.type !== 'delay' && step.type !== 'waitFor')) {
    throw new Error('mock script: only delay/waitFor may come before httpError');
  }
}

/** A promise a test settles by hand, for `waitFor` steps. */
export interface Gate {
  readonly promise: Promise<void>;
  release(): void;
}

/** Creates a gate for a `waitFor` step. */
export function createGate(): Gate {
  let release: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

/** Splits text into `count` nearly equal non-empty pieces (fewer when the text is short). */
export function splitText(text: string, count: number): string[] {
  const pieces = Math.max(1, Math.min(count, text.length));
  const size = Math.ceil(text.length / pieces);
  const out: string[] = [];
  for (let start = 0; start < text.length; start += size) out.push(text.slice(start, start + size));
  return out.length === 0 ? [''] : out;
}

/** The finish reason a reply implies when the script does not give one. */
export function defaultFinishReason(sawToolCalls: boolean): MockFinishReason {
  return sawToolCalls ? 'tool_calls' : 'stop';
}
