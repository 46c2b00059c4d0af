import OpenAI from 'openai';
import type { Stream } from 'openai/streaming';
import { abortReason } from './abort.js';
import { IdleWatchdog } from './idle-watchdog.js';
import { displayAddress, StreamDropError, type RequestTarget } from './model-errors.js';
import { inStreamFailure, requestFailureFrom } from './sdk-failures.js';
import { ModelError, type ResolvedProvider } from './types.js';

/**
 * One provider's HTTP side, on top of the official `openai` SDK (request
 * building, SSE parsing, typed HTTP errors). The SDK's own retries are off:
 * they cannot report `retrying` events and their backoff sleep ignores the
 * abort signal, so stream-with-retries.ts does the retrying.
 */
export class ProviderConnection {
  /** host[:port] of the base URL, for messages; null when the URL is invalid. */
  readonly host: string | null;
  private readonly client: OpenAI;

  constructor(readonly provider: ResolvedProvider) {
    this.host = hostOf(provider.baseUrl);
    const customAuth = Object.keys(provider.httpHeaders).some((name) => name.toLowerCase() === 'authorization');
    this.client = new OpenAI({
      // The SDK insists on a key; keyless local servers get a placeholder that is never sent.
      apiKey: provider.apiKey ?? 'no-key',
      adminAPIKey: null,
      organization: null,
      project: null,
      baseURL: provider.baseUrl,
      maxRetries: 0,
      logLevel: 'off',
      defaultHeaders: {
        ...provider.httpHeaders,
        ...(provider.apiKey === null && !customAuth ? { Authorization: null } : {}),
      },
    });
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
    let stream: Stream<unknown>;
    try {
      stream = await this.client.post<Stream<unknown>>(path, {
        body,
        stream: true,
        signal: AbortSignal.any([signal, attempt.signal]),
        headers: { Accept: 'text/event-stream' },
      });
    } catch (error) {
      watchdog.stop();
      throw settle(error, (e) => requestFailureFrom(e, this.target(host, body)));
    }
    try {
      watchdog.touch();
      for await (const data of stream) {
        watchdog.stop();
        yield data;
        watchdog.touch();
      }
    } catch (error) {
      throw settle(error, (e) =>
        e instanceof SyntaxError || e instanceof OpenAI.APIError
          ? inStreamFailure(e)
          : new StreamDropError('connectionLost', idleMs, { cause: e }),
      );
    } finally {
      watchdog.stop();
      // Releases the connection when the consumer stopped early.
      stream.controller.abort();
    }
    // The SDK ends iteration quietly when its request is aborted.
    if (signal.aborted) throw abortReason(signal);
    if (watchdog.fired) throw new StreamDropError('idle', idleMs);
  }

  private target(host: string, body: unknown): RequestTarget {
    const keySent = this.provider.apiKey !== null || Object.keys(this.provider.httpHeaders).some((name) => name.toLowerCase() === 'authorization');
    return { host, address: displayAddress(this.provider.baseUrl), model: modelOf(body), keySent };
  }

  /** GETs `path` and returns the parsed JSON body; failures become ModelErrors. */
  async getJson(path: string, signal: AbortSignal): Promise<unknown> {
    const host = this.ensureUsable();
    try {
      return await this.client.get<unknown>(path, { signal });
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      const failure = requestFailureFrom(error, this.target(host, null));
      throw failure instanceof ModelError ? failure : failure.error;
    }
  }
}

function modelOf(body: unknown): string | null {
  const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  return typeof model === 'string' ? model : null;
}

function hostOf(baseUrl: string): string | null {
  try {
    const url = new URL(baseUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : null;
  } catch {
    return null;
  }
}
