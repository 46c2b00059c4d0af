import type { ResponseHeaders } from './http-request.js';
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

/** Where a request went, for the words of its failure. */
export interface RequestTarget {
  /** host[:port] of the base URL. */
  readonly host: string;
  /** The base URL as a person can check it (no credentials, no query): what `cannotConnect` reports. */
  readonly address: string;
  /** The model asked for, when the request named one. */
  readonly model: string | null;
  /** Whether the request carried an API key: a 401 to a request without one means a key is needed, not a wrong one. */
  readonly keySent: boolean;
}

/** The base URL without user info, query or fragment, which may hold credentials. */
export function displayAddress(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return baseUrl;
  }
}

/** The failure of a server that cannot be reached, naming its address. */
export function cannotConnect(address: string, why: string | null, details: string | null = null): ModelError {
  return new ModelError(
    'cannotConnect',
    `Could not connect to ${address}${why ? ` (${why})` : ''}. Check that the server is running and the address is right.`,
    null,
    details,
    address,
  );
}

/** Maps an error the provider reported inside a 200 stream (Chat `{"error":…}` chunk, Responses error events). */
export function streamedProviderError(code: string | null, message: string): ModelError {
  const details = clip(message);
  if (isQuotaFailure(code, message)) return quotaExceeded(null, details);
  if (code !== null && /model.?not.?found/i.test(code)) return modelNotFound(null, null, details);
  if (code !== null && /rate.?limit/i.test(code)) {
    return new ModelError('rateLimited', 'The provider stopped the reply because of rate limits. Wait a minute and try again.', null, details);
  }
  if (code === null || /server|overload|timeout|unavailable/i.test(code)) {
    return new ModelError('serverError', `The provider failed while replying: ${message}`, null, details);
  }
  return new ModelError('other', `The provider could not finish the reply: ${message}`, null, details);
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
function retryAfterMs(headers: ResponseHeaders | null): number | null {
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

export function httpFailure(status: number, message: string, code: string | null, headers: ResponseHeaders | null, target: RequestTarget): RequestFailure | ModelError {
  const details = clip(message);
  if (isQuotaFailure(code, message) || status === 402) return quotaExceeded(status, details);
  if ((status === 401 || status === 403) && !target.keySent) {
    return new ModelError('missingKey', 'The provider asks for an API key, and none is saved. Enter one for it.', status, details);
  }
  if (status === 401 || status === 403) {
    return new ModelError('unauthorized', 'The provider refused the API key. Enter a valid key for it.', status, details);
  }
  if (status === 429) {
    return new RequestFailure(
      new ModelError('rateLimited', 'The provider is rate limiting requests. Wait a minute and try again.', status, details),
      true,
      retryAfterMs(headers),
    );
  }
  if (status >= 500) {
    return new RequestFailure(
      new ModelError('serverError', 'The provider had a server error. Try again shortly.', status, details),
      true,
      retryAfterMs(headers),
    );
  }
  if (status === 408) {
    return new RequestFailure(new ModelError('timeout', 'The provider gave up waiting for the request. Try again.', status, details), true, retryAfterMs(headers));
  }
  // OpenAI answers 404 `model_not_found`; DeepSeek 400 "Model Not Exist"; others name the model in a 404's message.
  if ((code !== null && /model.?not.?found/i.test(code)) || /model[^.]*(not exist|not found|does not exist)|no such model|unknown model/i.test(message)) {
    return modelNotFound(status, target.model, details);
  }
  if (status === 404) {
    return new ModelError(
      'configuration',
      `Nothing at ${target.address} answers the way Wheelhouse asks. Check the provider's address and API style in Settings.`,
      status,
      details,
    );
  }
  return new ModelError('other', `The provider refused the request: ${message}`, status, details);
}

/** Out of credit or over quota: OpenAI's 429 `insufficient_quota`, DeepSeek's 402 "Insufficient Balance", and their kin. */
function isQuotaFailure(code: string | null, message: string): boolean {
  if (code !== null && /quota|balance|billing|credit/i.test(code)) return true;
  return /insufficient (balance|quota|credit|funds)|exceeded your (current )?quota|out of credit/i.test(message);
}

function quotaExceeded(status: number | null, details: string): ModelError {
  return new ModelError(
    'quotaExceeded',
    'The provider says this account has no credit or quota left. Add credit with the provider, or use another key.',
    status,
    details,
  );
}

function modelNotFound(status: number | null, model: string | null, details: string): ModelError {
  const which = model ? `model called “${model}”` : 'such model';
  return new ModelError('modelNotFound', `The provider has no ${which}. Choose another model.`, status, details);
}

export function errorCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return null;
}

export function describeCode(code: string): string {
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

export function causeText(cause: unknown): string | null {
  const parts: string[] = [];
  let current: unknown = cause;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.length === 0 ? null : clip(parts.join(': '));
}

export function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

export function clip(text: string): string {
  return text.length > MAX_DETAILS_CHARS ? `${text.slice(0, MAX_DETAILS_CHARS)}…` : text;
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return seconds >= 1 ? `${Math.round(seconds)} s` : `${ms} ms`;
}
