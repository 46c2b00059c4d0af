import fs from 'node:fs';
import path from 'node:path';
import { SseSubscriber } from './sse-client.js';

/** An answer of the HTTP API; `body` is the parsed JSON (tests read into it freely). */
export interface HttpAnswer {
  readonly status: number;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON under test
  readonly headers: Headers;
}

/** A client of one `wheelhouse serve`'s `/v1` API with its token; closes its streams on `closeStreams`. */
export class HttpApiClient {
  private readonly streams: SseSubscriber[] = [];

  constructor(
    private readonly port: number,
    private readonly token: string,
  ) {}

  /** A request; `body` as a string is sent as is (for malformed JSON). Headers override the defaults. */
  async call(method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const response = await fetch(`http://127.0.0.1:${this.port}/v1${route}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text), headers: response.headers };
  }

  async subscribe(route: string, headers: Record<string, string> = {}): Promise<SseSubscriber> {
    const stream = await SseSubscriber.open(`http://127.0.0.1:${this.port}/v1${route}`, {
      headers: { authorization: `Bearer ${this.token}`, ...headers },
    });
    this.streams.push(stream);
    return stream;
  }

  closeStreams(): void {
    for (const stream of this.streams.splice(0)) stream.close();
  }
}

/** A config.toml making the mock model server the home's only provider. */
export function writeMockModelConfig(home: string, mockUrl: string): void {
  fs.writeFileSync(
    path.join(home, 'config.toml'),
    [
      'model = "deepseek-chat"',
      'model_provider = "mock"',
      '[model_providers.mock]',
      'name = "Mock"',
      `base_url = "${mockUrl}"`,
      'wire_api = "chat"',
      'request_max_retries = 0',
      '',
    ].join('\n'),
  );
}
