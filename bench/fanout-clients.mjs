// Child process of bench/event-fanout.ts: N WebSocket clients that count
// agent-message deltas and report after each turn completes (then count anew).
import WebSocket from 'ws';

const [url, count] = [process.argv[2], Number(process.argv[3])];
let counts = new Array(count).fill(0);
let first = 0;
let last = 0;
let completed = 0;
let initialized = 0;
for (let i = 0; i < count; i++) {
  const ws = new WebSocket(url);
  ws.on('open', () => ws.send(JSON.stringify({ id: 1, method: 'initialize', params: { clientInfo: { name: `bench-${i}`, version: '0' } } })));
  ws.on('message', (data) => {
    const text = data.toString();
    if (text.startsWith('{"id":1,')) {
      initialized += 1;
      if (initialized === count) process.send?.({ ready: true });
      return;
    }
    if (text.includes('"item/agentMessage/delta"')) {
      counts[i] += 1;
      const now = performance.now();
      if (first === 0) first = now;
      last = now;
    } else if (text.includes('"turn/completed"')) {
      completed += 1;
      if (completed === count) {
        process.send?.({ counts, seconds: (last - first) / 1000 });
        counts = new Array(count).fill(0);
        first = 0;
        last = 0;
        completed = 0;
      }
    }
  });
}
// The parent ends this process when it is done.
process.on('disconnect', () => process.exit(0));
