import { RequestFailure, StreamDropError, unexpected } from './model-errors.js';
import { abortableSleep, abortReason } from './abort.js';
import { ModelError, type ModelStreamEvent } from './types.js';

/** Backoff as the OpenAI SDKs do it: 0.5 s doubling to 8 s, minus up to 25 % jitter. */
const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A provider asking us to wait longer than this is not retried: the person decides. */
const MAX_RETRY_AFTER_MS = 60_000;

export interface RetryLimits {
  /** Retries of HTTP 408/429/5xx and connection failures. */
  readonly requestMaxRetries: number;
  /** Reconnects after a stream broke before any event was yielded. */
  readonly streamMaxRetries: number;
}

/**
 * Runs `attempt` until one finishes, yielding its events. Before an attempt
 * has yielded anything, retryable request failures and stream drops are
 * retried (each announced by a `retrying` event, then an abortable wait);
 * once output began, a failure is final so the caller can keep the partial
 * reply. Aborting `signal` throws `signal.reason`, also during a wait.
 */
export async function* streamWithRetries(
  limits: RetryLimits,
  signal: AbortSignal,
  attempt: () => AsyncIterable<ModelStreamEvent>,
): AsyncGenerator<ModelStreamEvent> {
  let requestRetries = 0;
  let streamRetries = 0;
  for (;;) {
    let began = false;
    let delayMs: number;
    let reason: string;
    let retry: { kind: 'request' | 'stream'; number: number; max: number };
    try {
      for await (const event of attempt()) {
        began = true;
        yield event;
      }
      return;
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      if (error instanceof RequestFailure && !began) {
        reason = error.error.message;
        const hinted = error.retryAfterMs;
        if (!error.retryable || requestRetries >= limits.requestMaxRetries) throw gaveUp(error.error, requestRetries);
        if (hinted !== null && hinted > MAX_RETRY_AFTER_MS) throw waitTooLong(error.error, hinted);
        delayMs = hinted ?? backoffDelayMs(requestRetries);
        requestRetries += 1;
        retry = { kind: 'request', number: requestRetries, max: limits.requestMaxRetries };
      } else if (error instanceof StreamDropError && !began) {
        reason = error.retryReason();
        if (streamRetries >= limits.streamMaxRetries) throw gaveUp(error.toModelError(false), streamRetries);
        delayMs = backoffDelayMs(streamRetries);
        streamRetries += 1;
        retry = { kind: 'stream', number: streamRetries, max: limits.streamMaxRetries };
      } else if (error instanceof StreamDropError) {
        throw error.toModelError(true);
      } else if (error instanceof RequestFailure) {
        throw error.error;
      } else {
        throw unexpected(error);
      }
    }
    yield { type: 'retrying', attempt: requestRetries + streamRetries, retry, delayMs: Math.round(delayMs), reason };
    await abortableSleep(delayMs, signal);
  }
}

/** The default wait before retry number `retryIndex` (0-based). */
function backoffDelayMs(retryIndex: number): number {
  const base = Math.min(INITIAL_DELAY_MS * 2 ** retryIndex, MAX_DELAY_MS);
  return base * (1 - Math.random() * 0.25);
}

function gaveUp(error: ModelError, retries: number): ModelError {
  if (retries === 0) return error;
  const times = retries === 1 ? 'once' : `${retries} times`;
  return error.reworded(`${error.message} (Retried ${times}.)`);
}

function waitTooLong(error: ModelError, waitMs: number): ModelError {
  const minutes = Math.ceil(waitMs / 60_000);
  return error.reworded(`${error.message} The provider asks to wait about ${minutes} minute${minutes === 1 ? '' : 's'} before trying again.`);
}
