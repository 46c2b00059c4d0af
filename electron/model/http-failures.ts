import {
  asRecord,
  causeText,
  cannotConnect,
  clip,
  describeCode,
  errorCode,
  httpFailure,
  RequestFailure,
  streamedProviderError,
  unexpected,
  type RequestTarget,
} from './model-errors.js';
import { ConnectionFailure, RequestTimeoutError, type ResponseHeaders } from './http-request.js';
import { ModelError } from './types.js';

/**
 * A provider's refusal: an HTTP status of 400 or more, or an `error` object
 * inside a 200 stream (status null). `body` is the provider's `error` object
 * when it sent OpenAI-shaped JSON; `message` follows the OpenAI SDK's wording
 * (Wheelhouse used the SDK before; providers' texts reach people unchanged).
 */
export class ProviderHttpError extends Error {
  constructor(
    readonly status: number | null,
    readonly body: unknown,
    readonly headers: ResponseHeaders | null,
    text?: string,
  ) {
    super(providerErrorText(status, body, text));
    this.name = 'ProviderHttpError';
  }
}

function providerErrorText(status: number | null, body: unknown, text: string | undefined): string {
  const record = asRecord(body);
  const inner = record?.message;
  const message = inner ? (typeof inner === 'string' ? inner : JSON.stringify(inner)) : body ? JSON.stringify(body) : text;
  if (status !== null && message) return `${status} ${message}`;
  if (status !== null) return `${status} status code (no body)`;
  return message || '(no status code or body)';
}

/** Maps a failure of the HTTP request itself (status, connection) to a retry decision and a ModelError. */
export function requestFailureFrom(error: unknown, target: RequestTarget): RequestFailure | ModelError {
  if (error instanceof RequestTimeoutError) {
    return new RequestFailure(
      new ModelError('timeout', `${target.host} did not answer in time. Check the network and try again.`),
      true,
      null,
    );
  }
  if (error instanceof ConnectionFailure) {
    const code = errorCode(error);
    // Nothing listening, or no such host: trying again at once changes nothing, and the person has Retry.
    const definite = code === 'ECONNREFUSED' || code === 'ENOTFOUND';
    return new RequestFailure(cannotConnect(target.address, code ? describeCode(code) : null, causeText(error.cause)), !definite, null);
  }
  if (error instanceof ProviderHttpError && error.status !== null) {
    return httpFailure(error.status, providerMessage(error), providerCode(error), error.headers, target);
  }
  return unexpected(error);
}

/** The machine-readable code of an OpenAI-shaped error body (`code`, else `type`). */
function providerCode(error: ProviderHttpError): string | null {
  const body = asRecord(error.body);
  if (typeof body?.code === 'string') return body.code;
  return typeof body?.type === 'string' ? body.type : null;
}

/** The provider's own error text: `error.message` of an OpenAI-shaped body, else the whole message. */
function providerMessage(error: ProviderHttpError): string {
  const body = asRecord(error.body);
  if (typeof body?.message === 'string' && body.message !== '') return body.message;
  return error.message;
}

/** Maps an in-stream failure (unparsable data, an `error` the provider streamed) to a ModelError. */
export function inStreamFailure(error: unknown): ModelError {
  if (error instanceof SyntaxError) {
    return new ModelError(
      'badResponse',
      'The provider sent a part of the reply that is not valid JSON, so it could not be read.',
      null,
      clip(error.message),
    );
  }
  if (error instanceof ProviderHttpError) return streamedProviderError(providerCode(error), providerMessage(error));
  return unexpected(error);
}
