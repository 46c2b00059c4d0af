import http from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { waitUntil } from './waiting.js';

/** One parsed Server-Sent Event; `json` is its data parsed (undefined if not JSON). */
export interface SseEvent {
  readonly id: number | undefined;
  readonly event: string;
  readonly data: string;
  readonly json: unknown;
}

export interface SseOpenOptions {
  readonly headers?: Record<string, string>;
}

/**
 * A Server-Sent Events subscriber for tests and benchmarks: node:http plus
 * the `eventsource-parser` library (the wire parsing a browser EventSource does),
 * keeping every event so a test can wait for one and compare streams.
 */
export class SseSubscriber {
  readonly events: SseEvent[] = [];
  /** Comment lines (keepalives) seen so far. */
  comments = 0;
  private readonly wakes = new Set<() => void>();
  private endedFlag = false;
  readonly ended: Promise<void>;
  private markEnded: () => void = () => undefined;

  private constructor(private readonly request: http.ClientRequest) {
    this.ended = new Promise((resolve) => {
      this.markEnded = resolve;
    });
  }

  /** Opens the stream; resolves once the server answered 200 with an event stream. */
  static open(url: string, options: SseOpenOptions = {}): Promise<SseSubscriber> {
    return new Promise((resolve, reject) => {
      const request = http.get(url, { headers: { accept: 'text/event-stream', ...options.headers } });
      const subscriber = new SseSubscriber(request);
      request.on('error', (error) => {
        subscriber.finish();
        reject(error);
      });
      request.on('response', (response) => {
        if (response.statusCode !== 200) {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => reject(new Error(`SSE refused with ${String(response.statusCode)}: ${body}`)));
          return;
        }
        const parser = createParser({
          onEvent: (message) => subscriber.push(message),
          onComment: () => {
            subscriber.comments++;
          },
        });
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => parser.feed(chunk));
        response.on('close', () => subscriber.finish());
        resolve(subscriber);
      });
    });
  }

  get isEnded(): boolean {
    return this.endedFlag;
  }

  /** The first event (already received or still to come) matching the predicate. */
  waitFor(predicate: (e: SseEvent) => boolean, what = 'a matching SSE event'): Promise<SseEvent> {
    return waitUntil(() => this.events.find(predicate), {
      what,
      wakeOn: (wake) => {
        this.wakes.add(wake);
        return () => this.wakes.delete(wake);
      },
    });
  }

  waitForEvent(name: string): Promise<SseEvent> {
    return this.waitFor((e) => e.event === name, `an SSE ${name} event`);
  }

  close(): void {
    this.request.destroy();
    this.finish();
  }

  private push(message: EventSourceMessage): void {
    let json: unknown;
    try {
      json = JSON.parse(message.data) as unknown;
    } catch {
      json = undefined;
    }
    const event: SseEvent = {
      id: message.id === undefined ? undefined : Number(message.id),
      event: message.event ?? 'message',
      data: message.data,
      json,
    };
    this.events.push(event);
    for (const wake of [...this.wakes]) wake();
  }

  private finish(): void {
    if (this.endedFlag) return;
    this.endedFlag = true;
    this.markEnded();
  }
}
