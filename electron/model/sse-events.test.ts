import { describe, expect, it } from 'vitest';
import { sseEvents, type SseEvent } from './sse-events.js';

async function read(chunks: readonly string[]): Promise<SseEvent[]> {
  const bytes = chunks.map((chunk) => new TextEncoder().encode(chunk));
  const events: SseEvent[] = [];
  for await (const event of sseEvents(bytes)) events.push(event);
  return events;
}

describe('server-sent events from a response body', () => {
  it('splits events on blank lines whatever the line ending, and whatever the chunking', async () => {
    const whole = 'event: a\ndata: {"x":1}\n\ndata: one\r\ndata: two\r\n\r\n: a comment\rdata:no-space\r\rdata: [DONE]\n\n';
    const expected = [
      { event: 'a', data: '{"x":1}' },
      { event: null, data: 'one\ntwo' },
      { event: null, data: 'no-space' },
      { event: null, data: '[DONE]' },
    ];
    expect(await read([whole])).toEqual(expected);
    // Every split point, including between \r and \n and inside a multi-byte character.
    for (let at = 1; at < whole.length; at++) expect(await read([whole.slice(0, at), whole.slice(at)])).toEqual(expected);
  });

  it('keeps multi-byte characters cut across chunks', async () => {
    const bytes = new TextEncoder().encode('data: héllo ✓\n\n');
    const events: SseEvent[] = [];
    for await (const event of sseEvents([bytes.slice(0, 9), bytes.slice(9, 16), bytes.slice(16)])) events.push(event);
    expect(events).toEqual([{ event: null, data: 'héllo ✓' }]);
  });

  it('drops an event the body ended before finishing', async () => {
    expect(await read(['data: complete\n\ndata: cut off'])).toEqual([{ event: null, data: 'complete' }]);
  });
});
