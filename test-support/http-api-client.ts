import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { killAllChildren } from './child-process.js';
import { startMockModelServer, type MockModelServer } from './mock-model/index.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { SseSubscriber } from './sse-client.js';
import { TempDirs } from './temp-dir.js';

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

/** What an HTTP API test file gets: one mock model, one `wheelhouse serve` pointed at it, and a client. */
export interface ServedHome {
  readonly mock: MockModelServer;
  readonly server: ServeProcess;
  readonly client: HttpApiClient;
  readonly home: string;
}

/**
 * Registers the hooks every HTTP API test file shares: before all tests a mock
 * model and a real `wheelhouse serve` on a fresh home configured for it; after
 * each test the client's event streams close; after all, every child process
 * and the mock stop. `use` receives the parts once they are up.
 */
export function useServedHome(homePrefix: string, use: (parts: ServedHome) => void): void {
  const temp = new TempDirs();
  let mock: MockModelServer | undefined;
  let client: HttpApiClient | undefined;
  beforeAll(async () => {
    mock = await startMockModelServer();
    const home = temp.make(homePrefix);
    writeMockModelConfig(home, mock.url);
    const server = await startServe({ home });
    client = new HttpApiClient(server.port, server.token);
    use({ mock, server, client, home });
  });
  afterEach(() => client?.closeStreams());
  afterAll(async () => {
    await killAllChildren();
    await mock?.close();
    temp.cleanup();
  });
}
