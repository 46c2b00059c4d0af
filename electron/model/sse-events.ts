import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One server-sent event: its `event:` name (null when unnamed) and its data lines joined. */
export interface SseEvent {
  readonly event: string | null;
  readonly data: string;
}

/**
 * The server-sent events of a response body, parsed as a browser's
 * EventSource does (eventsource-parser): lines end with \n, \r\n or \r, a
 * blank line ends an event, `:` lines are comments, and an event the body
 * ended before finishing is dropped.
 */
export async function* sseEvents(body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const ready: SseEvent[] = [];
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => ready.push({ event: message.event ?? null, data: message.data }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* ready.splice(0);
  }
  parser.feed(decoder.decode());
  yield* ready.splice(0);
}
