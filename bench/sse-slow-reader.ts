/**
 * An SSE client reading at 10 KB/s during a flood of logged events (100 MB by
 * default, `SSE_FLOOD_MB`), beside a client reading as fast as it can in the
 * same run (the baseline): what the server holds for each (its largest unsent
 * backlog) and how far this process's resident memory grows. A slow client is
 * paced from the durable log, so neither should grow with the flood.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { RpcHost } from '../electron/server/rpc-host.js';
import { startWebServer } from '../electron/server/web-server.js';
import { TempDirs } from '../test-support/temp-dir.js';
import { createTestRuntime } from '../test-support/test-runtime.js';

const EVENT_BYTES = 8 * 1024;
const SLOW_READ_BYTES_PER_TICK = 1024;
const SLOW_TICK_MS = 100;

const mb = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;

function openRawStream(port: number, token: string): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`);
      resolve(socket);
    });
  });
}

async function flood(options: { home: string; floodMb: number; slow: boolean }) {
  const backlog = { largest: 0 };
  const runtime = createTestRuntime({ home: options.home });
  const host = new RpcHost(runtime);
  const server = await startWebServer(host, { sse: { onBacklog: (bytes) => (backlog.largest = Math.max(backlog.largest, bytes)) } });
  const socket = await openRawStream(server.port, server.token);
  let received = 0;
  let reader: ReturnType<typeof setInterval> | undefined;
  if (options.slow) {
    // Paused mode: only what read() takes leaves the socket, 1 KB every 100 ms.
    socket.on('readable', () => undefined);
    reader = setInterval(() => {
      const chunk = socket.read(SLOW_READ_BYTES_PER_TICK) as Buffer | null;
      if (chunk) received += chunk.length;
    }, SLOW_TICK_MS);
  } else {
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
  }
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50);
  const events = Math.ceil((options.floodMb * 1024 * 1024) / EVENT_BYTES);
  const name = 'x'.repeat(EVENT_BYTES);
  const started = performance.now();
  try {
    for (let i = 0; i < events; i++) {
      runtime.events.publish('thread/name/updated', { threadId: 'flood', threadName: name });
      if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
    }
    await runtime.events.announced();
    const seconds = (performance.now() - started) / 1000;
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    return {
      reader: options.slow ? '10 KB/s' : 'as fast as it can',
      floodMb: options.floodMb,
      floodSeconds: Math.round(seconds * 10) / 10,
      receivedKb: Math.round(received / 1024),
      largestUnsentBacklogMb: mb(backlog.largest),
      rssGrowthMb: mb(rssPeak - rssBefore),
    };
  } finally {
    clearInterval(sampler);
    if (reader) clearInterval(reader);
    socket.destroy();
    await server.close();
    host.close();
    await runtime.shutdown();
  }
}

/**
 * Both floods, each in a Node process of its own. How far a flooding process's RSS grows is
 * mostly when V8 next collects, and that depends on what the process already holds: in the
 * bench's own process (every bench module loaded, other benches run) the slow reader's flood
 * grew it by 80-110 MB, alone by 3-6 MB, with the same runtime and the same largest backlog.
 */
export async function sseSlowReader(options: { floodMb?: number } = {}) {
  const floodMb = options.floodMb ?? Number(process.env['SSE_FLOOD_MB'] ?? 100);
  const loadAtStart = Math.round(os.loadavg()[0]! * 100) / 100;
  const baseline = await floodInChild(floodMb, false);
  const slow = await floodInChild(floodMb, true);
  return { loadAverage1m: { atStart: loadAtStart, atEnd: Math.round(os.loadavg()[0]! * 100) / 100 }, baseline, slow };
}

async function floodInChild(floodMb: number, slow: boolean): Promise<Awaited<ReturnType<typeof flood>>> {
  const script = fileURLToPath(import.meta.url);
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, '--flood-mb', String(floodMb), '--reader', slow ? 'slow' : 'fast'], {
    cwd: path.dirname(path.dirname(script)),
  });
  return JSON.parse(stdout) as Awaited<ReturnType<typeof flood>>;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const readerAt = process.argv.indexOf('--reader');
  if (readerAt < 0) {
    process.stdout.write(`${JSON.stringify(await sseSlowReader(), null, 2)}\n`);
  } else {
    // One flood in this process (how sseSlowReader runs each).
    const temp = new TempDirs();
    try {
      const floodMb = Number(process.argv[process.argv.indexOf('--flood-mb') + 1]);
      const result = await flood({ home: temp.make('wheelhouse-bench-'), floodMb, slow: process.argv[readerAt + 1] === 'slow' });
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } finally {
      temp.cleanup();
    }
  }
}
