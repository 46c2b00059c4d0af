import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { ModelError } from './types.js';

/**
 * Turning transport failures into ModelErrors a person can act on, plus the
 * two internal failure shapes the retry loop decides on. Nothing here ever
 * puts the API key into a message.
 */

const MAX_DETAILS_CHARS = 2_000;

/** Why an attempt's stream stopped early; internal until the retry loop turns it into a ModelError. */
export type StreamDropReason = 'ended' | 'connectionLost' | 'idle';

/** The stream ended, broke or went silent before the reply finished. Retried only before any output. */
export class StreamDropError extends Error {
  constructor(
    readonly reason: StreamDropReason,
    readonly idleTimeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`model stream dropped (${reason})`, options);
    this.name = 'StreamDropError';
  }

  /** The error the caller sees when this drop is final; the wording depends on whether output had begun. */
  toModelError(outputBegan: boolean): ModelError {
    switch (this.reason) {
      case 'idle':
        return new ModelError(
          'timeout',
          `The provider sent nothing for ${formatSeconds(this.idleTimeoutMs)}, so the request timed out.${outputBegan ? ' The text so far is kept.' : ''} Try again, or raise the stream idle timeout for this provider.`,
        );
      case 'ended':
      case 'connectionLost': {
        const what = this.reason === 'ended' ? 'The provider ended the reply' : 'The connection to the provider dropped';
        return new ModelError(
          'streamInterrupted',
          outputBegan
            ? `${what} before it was finished. The text so far is kept; send a message to continue.`
            : `${what} before the reply started. Try again.`,
          null,
          causeText(this.cause),
        );
      }
      default: {
        const unreachable: never = this.reason;
        throw new Error(`unknown drop reason ${String(unreachable)}`);
      }
    }
  }

  /** Short wording for a `retrying` event. */
  retryReason(): string {
    switch (this.reason) {
      case 'idle':
        return `The provider sent nothing for ${formatSeconds(this.idleTimeoutMs)}; reconnecting.`;
      case 'ended':
        return 'The provider closed the stream before the reply started; reconnecting.';
      case 'connectionLost':
        return 'The connection to the provider dropped before the reply started; reconnecting.';
      default: {
        const unreachable: never = this.reason;
        throw new Error(`unknown drop reason ${String(unreachable)}`);
      }
    }
  }
}

/** An HTTP or connection failure before any bytes of the reply; retried when `retryable`. */
export class RequestFailure extends Error {
  constructor(
    readonly error: ModelError,
    readonly retryable: boolean,
    /** The provider's own wait hint (Retry-After / retry-after-ms), if any. */
    readonly retryAfterMs: number | null,
  ) {
    super(error.message);
    this.name = 'RequestFailure';
  }
}

/** Maps a failure of the HTTP request itself (status, connection) to a retry decision and a ModelError. */
export function requestFailureFrom(error: unknown, host: string): RequestFailure | ModelError {
  if (error instanceof APIConnectionTimeoutError) {
    return new RequestFailure(
      new ModelError('timeout', `${host} did not answer in time. Check the network and try again.`),
      true,
      null,
    );
  }
  if (error instanceof APIConnectionError) {
    const code = errorCode(error);
    return new RequestFailure(
      new ModelError(
        'serverError',
        `Could not connect to ${host}${code ? ` (${describeCode(code)})` : ''}. Check the provider's base URL and the network.`,
        null,
        causeText(error.cause),
      ),
      true,
      null,
    );
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    return httpFailure(error.status, providerMessage(error), error.headers ?? null);
  }
  return unexpected(error);
}

/** Maps an error the provider reported inside a 200 stream (Chat `{"error":…}` chunk, Responses error events). */
export function streamedProviderError(code: string | null, message: string): ModelError {
  const details = clip(message);
  if (code !== null && /rate.?limit/i.test(code)) {
    return new ModelError('rateLimited', 'The provider stopped the reply because of rate limits. Wait a minute and try again.', null, details);
  }
  if (code === null || /server|overload|timeout|unavailable/i.test(code)) {
    return new ModelError('serverError', `The provider failed while replying: ${message}`, null, details);
  }
  return new ModelError('other', `The provider could not finish the reply: ${message}`, null, details);
}

/** Maps an in-stream failure (parse error, APIError without status) to a ModelError. */
export function inStreamFailure(error: unknown): ModelError {
  if (error instanceof SyntaxError) {
    return new ModelError(
      'badResponse',
      'The provider sent a part of the reply that is not valid JSON, so it could not be read.',
      null,
      clip(error.message),
    );
  }
  if (error instanceof APIError) {
    const body = asRecord(error.error);
    const code = typeof body?.code === 'string' ? body.code : typeof body?.type === 'string' ? body.type : null;
    return streamedProviderError(code, providerMessage(error));
  }
  return unexpected(error);
}

/** A reply whose JSON has the wrong shape. */
export function badShape(what: string, details: string): ModelError {
  return new ModelError('badResponse', `The provider sent ${what} that Wheelhouse could not understand.`, null, clip(details));
}

/** Anything else: an unexpected local failure. */
export function unexpected(error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError('other', `Talking to the provider failed unexpectedly: ${message}`);
}

/** Parses `retry-after-ms` / `Retry-After` (seconds or an HTTP date); null when absent or unreadable. */
function retryAfterMs(headers: Headers | null): number | null {
  if (headers === null) return null;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null) return null;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function httpFailure(status: number, message: string, headers: Headers | null): RequestFailure | ModelError {
  const details = clip(message);
  if (status === 401 || status === 403) {
    return new ModelError('unauthorized', `The provider rejected the API key (${status}). Check the key in Settings.`, status, details);
  }
  if (status === 429) {
    return new RequestFailure(
      new ModelError('rateLimited', 'The provider is rate limiting requests (429). Wait a minute and try again.', status, details),
      true,
      retryAfterMs(headers),
    );
  }
  if (status >= 500) {
    return new RequestFailure(
      new ModelError('serverError', `The provider had a server error (${status}). Try again shortly.`, status, details),
      true,
      retryAfterMs(headers),
    );
  }
  if (status === 408) {
    return new RequestFailure(new ModelError('timeout', 'The provider timed out the request (408).', status, details), true, retryAfterMs(headers));
  }
  if (status === 404) {
    return new ModelError(
      'configuration',
      "The provider has no such model or endpoint (404). Check the model name and the provider's base URL.",
      status,
      details,
    );
  }
  return new ModelError('other', `The provider refused the request (${status}): ${message}`, status, details);
}

/** The provider's own error text: `error.message` of an OpenAI-shaped body, else the SDK's message. */
function providerMessage(error: APIError): string {
  const body = asRecord(error.error);
  if (typeof body?.message === 'string' && body.message !== '') return body.message;
  return error.message;
}

function errorCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return null;
}

function describeCode(code: string): string {
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name could not be resolved';
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'the connection timed out';
    default:
      return code;
  }
}

function causeText(cause: unknown): string | null {
  const parts: string[] = [];
  let current: unknown = cause;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.length === 0 ? null : clip(parts.join(': '));
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

function clip(text: string): string {
  return text.length > MAX_DETAILS_CHARS ? `${text.slice(0, MAX_DETAILS_CHARS)}…` : text;
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return seconds >= 1 ? `${Math.round(seconds)} s` : `${ms} ms`;
}
