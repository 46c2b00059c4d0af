import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatRenderer } from './chat-renderer.js';
import { ResponsesRenderer } from './responses-renderer.js';
import {
  isContentStep,
  validateScript,
  type MockControlStep,
  type MockScript,
  type MockScriptFactory,
  type WireRenderer,
} from './script.js';
import { trackWait } from '../waiting.js';

/** How one exchange ended, as seen by the server. */
export type MockOutcome = 'completed' | 'clientClosed' | 'cut';

/** One HTTP request the mock received, exactly as sent. */
export interface MockRecordedRequest {
  readonly method: string;
  /** Path including the `/v1` prefix, without query string. */
  readonly path: string;
  /** Lower-cased header names (repeated headers joined with ", "). */
  readonly headers: Readonly<Record<string, string>>;
  readonly rawBody: string;
  /** The JSON body, or null when there was none or it did not parse. */
  readonly body: Readonly<Record<string, unknown>> | null;
  /** Settles when the exchange is over: finished, cut by the script, or closed by the client. */
  readonly outcome: Promise<MockOutcome>;
}

export interface MockModelServerOptions {
  /** Ids served by GET /v1/models. */
  readonly models?: readonly string[];
  /** When set, requests without `Authorization: Bearer <apiKey>` get the provider's 401. */
  readonly apiKey?: string;
}

/** A local model provider speaking both OpenAI wires, driven by scripts. */
export interface MockModelServer {
  /** Base URL including `/v1`, as a provider's base_url. */
  readonly url: string;
  /** Every request received, in arrival order. */
  readonly requests: readonly MockRecordedRequest[];
  /** Scripts not yet used by a request. */
  readonly pendingScripts: number;
  /** Queues scripts; each answers the next POST to /chat/completions or /responses (a factory is called with that request). */
  enqueue(...scripts: (MockScript | MockScriptFactory)[]): void;
  /** Resolves once at least `count` requests have arrived. */
  waitForRequests(count: number): Promise<readonly MockRecordedRequest[]>;
  close(): Promise<void>;
}

const DEFAULT_MODELS = ['deepseek-chat', 'deepseek-reasoner', 'gpt-5', 'local-model'];

/** Starts the mock on 127.0.0.1 with an ephemeral port. */
export async function startMockModelServer(options: MockModelServerOptions = {}): Promise<MockModelServer> {
  const queue: (MockScript | MockScriptFactory)[] = [];
  const requests: MockRecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let exchangeCounter = 0;

  const server = http.createServer((req, res) => {
    void (async () => {
      const rawBody = await readBody(req);
      const exchange = new Exchange(res);
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      requests.push({
        method: req.method ?? 'GET',
        path,
        headers: flattenHeaders(req.headers),
        rawBody,
        body: parseBody(rawBody),
        outcome: exchange.outcome,
      });
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const auth = req.headers.authorization;
      if (options.apiKey !== undefined && auth !== `Bearer ${options.apiKey}`) {
        exchange.sendError(401, 'Incorrect API key provided.', 'invalid_api_key');
        return;
      }
      const route = `${req.method ?? 'GET'} ${path.replace(/^\/v1/, '')}`;
      if (route === 'GET /models') {
        exchange.sendJson(200, {
          object: 'list',
          data: (options.models ?? DEFAULT_MODELS).map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'mock' })),
        });
        return;
      }
      if (route !== 'POST /chat/completions' && route !== 'POST /responses') {
        exchange.sendError(404, `mock model server: no route for ${route}`, 'not_found');
        return;
      }
      const body = parseBody(rawBody);
      if (body === null) {
        exchange.sendError(400, 'mock model server: body is not a JSON object', 'invalid_json');
        return;
      }
      const queued = queue.shift();
      if (queued === undefined) {
        exchange.sendError(500, `mock model server: no script queued for ${route}`, 'no_script');
        return;
      }
      const script = typeof queued === 'function' ? queued({ body }) : queued;
      if (typeof queued === 'function') validateScript(script);
      exchangeCounter += 1;
      const model = typeof body.model === 'string' ? body.model : 'unknown';
      const renderer: WireRenderer =
        route === 'POST /responses'
          ? new ResponsesRenderer({
              id: `resp_mock_${exchangeCounter}`,
              model,
              instructions: typeof body.instructions === 'string' ? body.instructions : null,
            })
          : new ChatRenderer({ id: `chatcmpl-mock-${exchangeCounter}`, model, includeUsage: includesUsage(body) });
      await exchange.run(script, renderer);
    })().catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get pendingScripts() {
      return queue.length;
    },
    enqueue(...scripts) {
      for (const script of scripts) if (typeof script !== 'function') validateScript(script);
      queue.push(...scripts);
    },
    waitForRequests(count) {
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const waiter = {
          count,
          resolve: () => {
            untrack();
            resolve(requests);
          },
        };
        // Named by the leak check if the test ends first.
        const untrack = trackWait(`${count} requests to the mock model (${requests.length} so far)`, (reason) => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`${reason} while waiting for ${count} requests to the mock model`));
        });
        waiters.push(waiter);
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One request/response pair: carries out a script's steps on the socket. */
class Exchange {
  readonly outcome: Promise<MockOutcome>;
  private readonly closed: Promise<void>;
  private cut = false;

  constructor(private readonly res: http.ServerResponse) {
    this.closed = new Promise((resolve) => res.once('close', () => resolve()));
    this.outcome = this.closed.then(() => {
      if (this.cut) return 'cut';
      return res.writableFinished ? 'completed' : 'clientClosed';
    });
  }

  async run(script: MockScript, renderer: WireRenderer): Promise<void> {
    const streaming = !script.some((step) => step.type === 'httpError');
    if (streaming) {
      this.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      this.res.flushHeaders();
    }
    for (const step of script) {
      if (this.res.destroyed) return;
      if (isContentStep(step)) {
        for (const frame of renderer.render(step)) this.res.write(frame);
        continue;
      }
      const finished = await this.control(step, renderer);
      if (finished) return;
    }
    this.res.end();
  }

  sendJson(status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.res.writeHead(status, { 'content-type': 'application/json', ...headers });
    this.res.end(JSON.stringify(body));
  }

  sendError(status: number, message: string, code: string, headers: Record<string, string> = {}): void {
    const type = status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
    this.sendJson(status, { error: { message, type, param: null, code } }, headers);
  }

  /** Carries out a control step; true when the exchange is over. */
  private async control(step: MockControlStep, renderer: WireRenderer): Promise<boolean> {
    switch (step.type) {
      case 'delay':
        await this.sleep(step.ms);
        return false;
      case 'waitFor':
        await Promise.race([step.release, this.closed]);
        return false;
      case 'stall':
        await this.closed;
        return true;
      case 'cut': {
        this.cut = true;
        const socket = this.res.socket;
        if (socket) {
          // Let what was already written reach the client, then drop the connection mid-response.
          await new Promise<void>((resolve) => socket.write('', () => resolve()));
          socket.destroy();
        }
        return true;
      }
      case 'malformed':
        this.res.write(renderer.malformed());
        return false;
      case 'httpError':
        this.sendError(
          step.status,
          step.message ?? defaultErrorMessage(step.status),
          step.code ?? defaultErrorCode(step.status),
          step.retryAfter === undefined ? {} : { 'retry-after': step.retryAfter },
        );
        return true;
      default: {
        const unreachable: never = step;
        throw new Error(`unknown control step ${JSON.stringify(unreachable)}`);
      }
    }
  }

  private async sleep(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), this.closed]);
    clearTimeout(timer);
  }
}

function defaultErrorMessage(status: number): string {
  if (status === 401) return 'Incorrect API key provided.';
  if (status === 403) return 'You are not allowed to use this model.';
  if (status === 429) return 'Rate limit reached for requests. Please try again shortly.';
  if (status >= 500) return 'The server had an error while processing your request.';
  return `Request failed with status ${status}.`;
}

function defaultErrorCode(status: number): string {
  if (status === 401) return 'invalid_api_key';
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request';
}

function includesUsage(body: Readonly<Record<string, unknown>>): boolean {
  const options = body.stream_options;
  return typeof options === 'object' && options !== null && 'include_usage' in options && options.include_usage === true;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(raw: string): Readonly<Record<string, unknown>> | null {
  if (raw === '') return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
