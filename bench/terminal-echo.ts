/**
 * Keystroke echo in the person's terminal, end to end: a real
 * `wheelhouse app-server` over stdio or `wheelhouse serve` over WebSocket, a
 * `command/exec` tty running `cat` (the pty's line discipline echoes each
 * key), while a second `command/exec` on the same connection floods
 * `seq 1 3000000` and the client acknowledges its output as it arrives (as
 * the panel does once xterm has parsed it). The flood shares the terminal's
 * connection, carrier and supervisor: the worst case the panel meets.
 * Time from sending `command/exec/write` to the echoed key arriving in a
 * `command/exec/outputDelta`: JSON-RPC, the carrier, the supervisor's
 * batching and base64 included.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { ensureCliBuilt } from '../test-support/build.js';
import { killAllChildren, spawnTracked } from '../test-support/child-process.js';
import { cliBin, repoRoot } from '../test-support/paths.js';
import { startServe } from '../test-support/serve-process.js';
import { TempDirs } from '../test-support/temp-dir.js';
import { connectWs } from '../test-support/ws-peer.js';
import { ms, quantile, summarize } from './stats.js';

interface Delta {
  readonly processId: string;
  readonly deltaBase64: string;
}

/** One client connection: send a line of JSON, receive each message; `close` ends it and its server. */
interface Carrier {
  send(text: string): void;
  onMessage(listener: (text: string) => void): void;
  close(): Promise<void>;
}

function stdioCarrier(home: string): Carrier {
  const server = spawnTracked(process.execPath, [cliBin, 'app-server', '--home', home], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, WHEELHOUSE_HOME: home },
  });
  const { stdin, stdout } = server.child;
  if (!stdin || !stdout) throw new Error('app-server spawned without pipes');
  const lines = readline.createInterface({ input: stdout, crlfDelay: Infinity });
  return {
    send: (text) => void stdin.write(`${text}\n`),
    onMessage: (listener) => void lines.on('line', listener),
    close: async () => {
      stdin.end();
      await server.exited;
    },
  };
}

async function webSocketCarrier(home: string): Promise<Carrier> {
  const serve = await startServe({ home });
  const { socket } = await connectWs(serve.wsUrl);
  return {
    send: (text) => socket.send(text),
    onMessage: (listener) => void socket.on('message', (data) => listener(String(data))),
    close: async () => {
      socket.close();
      await serve.stop();
    },
  };
}

export async function terminalEchoUnderFlood(options: { home: string; cwd: string; keystrokes?: number; carrier?: 'stdio' | 'websocket' }) {
  const keystrokes = options.keystrokes ?? 60;
  const loadAverage1mAtStart = Math.round(os.loadavg()[0]! * 100) / 100;
  const carrier = options.carrier === 'websocket' ? await webSocketCarrier(options.home) : stdioCarrier(options.home);
  let nextId = 1;
  const pending = new Map<number, (message: { result?: unknown; error?: { message: string } }) => void>();
  const send = (method: string, params: unknown) => {
    const id = nextId++;
    carrier.send(JSON.stringify({ id, method, params }));
    return new Promise<{ result?: unknown; error?: { message: string } }>((resolve) => pending.set(id, resolve));
  };
  let floodBytes = 0;
  let floodEnded = false;
  let waiting: { key: string; sentAt: number; resolve: (ms: number) => void } | null = null;
  carrier.onMessage((line) => {
    const message = JSON.parse(line) as { id?: number; method?: string; params?: Delta };
    if (message.id !== undefined && pending.has(message.id)) {
      pending.get(message.id)!(message as { result?: unknown });
      pending.delete(message.id);
      return;
    }
    if (message.method !== 'command/exec/outputDelta' || !message.params) return;
    const bytes = Buffer.from(message.params.deltaBase64, 'base64');
    if (message.params.processId === 'flood') {
      floodBytes += bytes.length;
      void send('command/exec/ack', { processId: 'flood', bytes: bytes.length });
    } else if (waiting && bytes.includes(waiting.key)) {
      const done = waiting;
      waiting = null;
      done.resolve(performance.now() - done.sentAt);
    }
  });
  try {
    await send('initialize', { clientInfo: { name: 'terminal-echo-bench', version: '0' } });
    const terminal = send('command/exec', { command: ['cat'], processId: 'echo', tty: true, cwd: options.cwd, disableOutputCap: true });
    const flood = send('command/exec', {
      command: ['seq', '1', '3000000'],
      processId: 'flood',
      tty: true,
      cwd: options.cwd,
      disableOutputCap: true,
      outputAck: true,
    }).then(() => (floodEnded = true));
    // The terminal is up once it echoes.
    await new Promise<number>((resolve) => {
      waiting = { key: '.', sentAt: performance.now(), resolve };
      void send('command/exec/write', { processId: 'echo', deltaBase64: Buffer.from('.').toString('base64') });
    });
    while (floodBytes === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const samples: number[] = [];
    for (let i = 0; i < keystrokes && !floodEnded; i += 1) {
      const key = String.fromCharCode(97 + (i % 26));
      samples.push(
        await new Promise<number>((resolve) => {
          waiting = { key, sentAt: performance.now(), resolve };
          void send('command/exec/write', { processId: 'echo', deltaBase64: Buffer.from(key).toString('base64') });
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const floodStillRunning = !floodEnded;
    await send('command/exec/terminate', { processId: 'flood' });
    await send('command/exec/terminate', { processId: 'echo' });
    await Promise.all([terminal, flood]);
    const sorted = [...samples].sort((a, b) => a - b);
    return { carrier: options.carrier ?? 'stdio', ...summarize(samples), p95Ms: ms(quantile(sorted, 0.95)), floodStillRunning, floodBytesDuringRun: floodBytes, loadAverage1mAtStart };
  } finally {
    await carrier.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.NODE_ENV = 'production';
  ensureCliBuilt();
  const temp = new TempDirs();
  try {
    const results = [];
    for (const carrier of ['stdio', 'websocket'] as const) {
      results.push(await terminalEchoUnderFlood({ home: temp.make('wheelhouse-bench-'), cwd: temp.make('wheelhouse-bench-'), carrier }));
    }
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } finally {
    await killAllChildren();
    temp.cleanup();
  }
}
