import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
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
import { ModelError } from './types.js';

/**
 * The OpenAI SDK's error classes mapped to ModelErrors. Apart from
 * model-errors.ts so that what reads errors without a request (the model
 * probe in Settings, start-up) does not load the SDK.
 */

/** Maps a failure of the HTTP request itself (status, connection) to a retry decision and a ModelError. */
export function requestFailureFrom(error: unknown, target: RequestTarget): RequestFailure | ModelError {
  if (error instanceof APIConnectionTimeoutError) {
    return new RequestFailure(
      new ModelError('timeout', `${target.host} did not answer in time. Check the network and try again.`),
      true,
      null,
    );
  }
  if (error instanceof APIConnectionError) {
    const code = errorCode(error);
    // Nothing listening, or no such host: trying again at once changes nothing, and the person has Retry.
    const definite = code === 'ECONNREFUSED' || code === 'ENOTFOUND';
    return new RequestFailure(cannotConnect(target.address, code ? describeCode(code) : null, causeText(error.cause)), !definite, null);
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    return httpFailure(error.status, providerMessage(error), providerCode(error), error.headers ?? null, target);
  }
  return unexpected(error);
}

/** The machine-readable code of an OpenAI-shaped error body (`code`, else `type`). */
function providerCode(error: APIError): string | null {
  const body = asRecord(error.error);
  if (typeof body?.code === 'string') return body.code;
  return typeof body?.type === 'string' ? body.type : null;
}

/** The provider's own error text: `error.message` of an OpenAI-shaped body, else the SDK's message. */
function providerMessage(error: APIError): string {
  const body = asRecord(error.error);
  if (typeof body?.message === 'string' && body.message !== '') return body.message;
  return error.message;
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
  if (error instanceof APIError) return streamedProviderError(providerCode(error), providerMessage(error));
  return unexpected(error);
}
