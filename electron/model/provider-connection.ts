import { abortReason } from './abort.js';
import { inStreamFailure, ProviderHttpError, requestFailureFrom } from './http-failures.js';
import { sendRequest, type HttpAnswer } from './http-request.js';
import { IdleWatchdog } from './idle-watchdog.js';
import { displayAddress, StreamDropError, type RequestTarget } from './model-errors.js';
import { sseEvents } from './sse-events.js';
import { ModelError, type ResolvedProvider } from './types.js';

/** How long a request may wait for the response's headers (the OpenAI SDK's default, which Wheelhouse used before). */
const HEADERS_TIMEOUT_MS = 10 * 60_000;

/**
 * One provider's HTTP side, on node:http: two JSON-over-HTTP calls (a
 * streamed POST read as server-sent events, and a GET) are all Wheelhouse
 * asks of a provider, so it carries no SDK for them (the OpenAI SDK cost
 * 14 MB of memory and 70 ms of CPU at the first turn, fetch another 17 MB). Retrying is
 * stream-with-retries.ts's, which reports `retrying` events.
 */
export class ProviderConnection {
  /** host[:port] of the base URL, for messages; null when the URL is invalid. */
  readonly host: string | null;

  constructor(readonly provider: ResolvedProvider) {
    this.host = hostOf(provider.baseUrl);
  }

  /** Throws ModelError('configuration') when the provider cannot be used as configured. */
  ensureUsable(): string {
    if (this.host === null) {
      throw new ModelError(
        'configuration',
        `The base URL of ${this.provider.name} ("${this.provider.baseUrl}") is not a valid http(s) URL. Fix it in Settings.`,
      );
    }
    if (this.provider.requiresApiKey && !this.provider.apiKey) {
      throw new ModelError('missingKey', `${this.provider.name} needs an API key, and none is saved. Enter one in Settings.`);
    }
    return this.host;
  }

  /**
   * POSTs `body` to `path` and yields each SSE data object as parsed JSON.
   * Returns normally only when the server closed the stream. Throws
   * `signal.reason` when aborted, StreamDropError when the stream broke or
   * went idle for the provider's `streamIdleTimeoutMs`, RequestFailure /
   * ModelError for HTTP and parse failures.
   */
  async *openSse(path: string, body: unknown, signal: AbortSignal): AsyncGenerator<unknown> {
    const host = this.ensureUsable();
    const idleMs = this.provider.streamIdleTimeoutMs;
    const attempt = new AbortController();
    const watchdog = new IdleWatchdog(idleMs, () => attempt.abort());
    const settle = (error: unknown, classify: (error: unknown) => unknown): unknown => {
      if (signal.aborted) return abortReason(signal);
      if (watchdog.fired) return new StreamDropError('idle', idleMs, { cause: error });
      return classify(error);
    };
    const stopped = AbortSignal.any([signal, attempt.signal]);
    let response: HttpAnswer;
    try {
      response = await this.request('POST', path, body, 'text/event-stream', stopped);
    } catch (error) {
      watchdog.stop();
      attempt.abort();
      throw settle(error, (e) => requestFailureFrom(e, this.target(host, body)));
    }
    try {
      watchdog.touch();
      let done = false;
      for await (const event of sseEvents(response.body)) {
        // After [DONE] the rest is read to the end and ignored, as the OpenAI SDK did.
        if (done) continue;
        if (event.data.startsWith('[DONE]')) {
          done = true;
          continue;
        }
        const data = JSON.parse(event.data) as unknown;
        if (data && (data as { error?: unknown }).error) throw new ProviderHttpError(null, (data as { error: unknown }).error, response.headers);
        watchdog.stop();
        yield data;
        watchdog.touch();
      }
    } catch (error) {
      throw settle(error, (e) =>
        e instanceof SyntaxError || e instanceof ProviderHttpError ? inStreamFailure(e) : new StreamDropError('connectionLost', idleMs, { cause: e }),
      );
    } finally {
      watchdog.stop();
      // Releases the connection when the consumer stopped early.
      attempt.abort();
    }
    if (signal.aborted) throw abortReason(signal);
    if (watchdog.fired) throw new StreamDropError('idle', idleMs);
  }

  /** GETs `path` and returns the parsed JSON body; failures become ModelErrors. */
  async getJson(path: string, signal: AbortSignal): Promise<unknown> {
    const host = this.ensureUsable();
    try {
      const response = await this.request('GET', path, undefined, 'application/json', signal);
      const text = await response.text();
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      const failure = requestFailureFrom(error, this.target(host, null));
      throw failure instanceof ModelError ? failure : failure.error;
    }
  }

  /**
   * Sends one request and returns a response whose status is 2xx; throws
   * ProviderHttpError for any other status (its body read), ConnectionFailure when no
   * answer came, RequestTimeoutError when the headers took too long.
   */
  private async request(method: 'GET' | 'POST', path: string, body: unknown, accept: string, signal: AbortSignal): Promise<HttpAnswer> {
    // Names are matched without regard to case; the provider's own headers win.
    const headers = new Map<string, [string, string]>();
    const set = (name: string, value: string) => headers.set(name.toLowerCase(), [name, value]);
    set('Accept', accept);
    if (body !== undefined) set('Content-Type', 'application/json');
    if (this.provider.apiKey) set('Authorization', `Bearer ${this.provider.apiKey}`);
    for (const [name, value] of Object.entries(this.provider.httpHeaders)) set(name, value);
    const response = await sendRequest(joinUrl(this.provider.baseUrl, path), {
      method,
      headers: Object.fromEntries(headers.values()),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
      timeoutMs: HEADERS_TIMEOUT_MS,
    });
    if (response.status >= 200 && response.status < 300) return response;
    const text = await response.text().catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    const json = parseJson(text);
    throw json === undefined
      ? new ProviderHttpError(response.status, undefined, response.headers, text)
      : new ProviderHttpError(response.status, (json as { error?: unknown } | null)?.error, response.headers);
  }

  private target(host: string, body: unknown): RequestTarget {
    const keySent = this.provider.apiKey !== null || Object.keys(this.provider.httpHeaders).some((name) => name.toLowerCase() === 'authorization');
    return { host, address: displayAddress(this.provider.baseUrl), model: modelOf(body), keySent };
  }
}

function modelOf(body: unknown): string | null {
  const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  return typeof model === 'string' ? model : null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The base URL and a path with one slash between them, as the OpenAI SDK joined them. */
function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.endsWith('/') && path.startsWith('/') ? `${baseUrl}${path.slice(1)}` : `${baseUrl}${path}`;
}

function hostOf(baseUrl: string): string | null {
  try {
    const url = new URL(baseUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : null;
  } catch {
    return null;
  }
}
