// Child process of bench/sse-fanout.ts: N SSE subscribers (node:http +
// eventsource-parser) that count agent-message deltas and report when the
// turn completes, so their parsing does not load the host being measured.
import http from 'node:http';
import { createParser } from 'eventsource-parser';

const [url, token, count] = [process.argv[2], process.argv[3], Number(process.argv[4])];
const counts = new Array(count).fill(0);
let first = 0;
let last = 0;
let completed = 0;
let connected = 0;
const requests = [];
for (let i = 0; i < count; i++) {
  const request = http.get(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
  requests.push(request);
  request.on('response', (response) => {
    connected += 1;
    if (connected === count) process.send?.({ ready: true });
    const parser = createParser({
      onEvent: (event) => {
        if (event.event === 'item/agentMessage/delta') {
          counts[i] += 1;
          const now = performance.now();
          if (first === 0) first = now;
          last = now;
        } else if (event.event === 'turn/completed') {
          completed += 1;
          if (completed === count) {
            process.send?.({ counts, seconds: (last - first) / 1000 });
            for (const r of requests) r.destroy();
          }
        }
      },
    });
    response.setEncoding('utf8');
    response.on('data', (chunk) => parser.feed(chunk));
  });
}
