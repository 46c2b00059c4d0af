import http from 'node:http';
import https from 'node:https';

/** The response headers a failure reads (Retry-After); the shape of fetch's Headers.get. */
export interface ResponseHeaders {
  get(name: string): string | null;
}

/** A response whose headers have arrived; its body is read as it streams. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
}

/** No answer came: `cause` is the socket's error (ECONNREFUSED, ENOTFOUND, …). */
export class ConnectionFailure extends Error {
  constructor(cause: unknown) {
    super('Connection error.', { cause });
    this.name = 'ConnectionFailure';
  }
}

/** The response's headers did not arrive in time. */
export class RequestTimeoutError extends Error {
  constructor() {
    super('Request timed out.');
    this.name = 'RequestTimeoutError';
  }
}

/**
 * One HTTP(S) request on node:http rather than fetch: Node's fetch (undici)
 * costs about 20 MB of resident memory the first time it is used, node:http
 * about 3. Resolves once the headers are in (any status); rejects with the
 * signal's reason when aborted, RequestTimeoutError after `timeoutMs` without
 * headers, ConnectionFailure otherwise. Redirects are not followed.
 */
export function sendRequest(
  url: string,
  options: { method: 'GET' | 'POST'; headers: Readonly<Record<string, string>>; body?: string; signal: AbortSignal; timeoutMs: number },
): Promise<HttpAnswer> {
  const { signal } = options;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const transport = target.protocol === 'https:' ? https : http;
    let timedOut = false;
    const request = transport.request(target, { method: options.method, headers: options.headers, signal });
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      if (signal.aborted) reject(signal.reason);
      else reject(timedOut ? new RequestTimeoutError() : new ConnectionFailure(error));
    });
    request.on('response', (response) => {
      clearTimeout(timer);
      // Errors after this point surface where the body is read.
      request.removeAllListeners('error');
      request.on('error', () => undefined);
      resolve({
        status: response.statusCode ?? 0,
        headers: {
          get: (name) => {
            const value = response.headers[name.toLowerCase()];
            return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
          },
        },
        body: response,
        text: async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of response) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks).toString('utf8');
        },
      });
    });
    request.end(options.body);
  });
}
