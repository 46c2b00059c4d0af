import { performance } from 'node:perf_hooks';
import { spawnTracked } from '../test-support/child-process.js';
import { cliBin, repoRoot } from '../test-support/paths.js';
import { startServe } from '../test-support/serve-process.js';
import { requester, stdioChannel, webSocketChannel, type RawChannel } from './raw-channel.js';
import { summarize, type LatencySummary } from './stats.js';

/** Where to run and how many requests to time. */
export interface RoundTripOptions {
  readonly home: string;
  readonly warmup: number;
  readonly requests: number;
}

const INIT = { clientInfo: { name: 'wheelhouse-bench', version: '0.0.0' } };

/** Times `requests` sequential thread/loaded/list calls, one in flight at a time. */
async function measure(channel: RawChannel, options: RoundTripOptions): Promise<LatencySummary> {
  const request = requester(channel);
  const init = await request('initialize', INIT);
  if (!init.includes('"result"')) throw new Error(`initialize failed: ${init}`);
  for (let i = 0; i < options.warmup; i++) await request('thread/loaded/list', {});
  const samples: number[] = [];
  for (let i = 0; i < options.requests; i++) {
    const start = performance.now();
    const text = await request('thread/loaded/list', {});
    samples.push(performance.now() - start);
    if (i === 0 && !text.includes('"result"')) throw new Error(`thread/loaded/list failed: ${text}`);
  }
  return summarize(samples);
}

/** Round trip of a small request over `wheelhouse app-server` (stdio). */
export async function stdioRoundTrip(options: RoundTripOptions): Promise<LatencySummary> {
  const server = spawnTracked(process.execPath, [cliBin, 'app-server', '--home', options.home], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const channel = stdioChannel(server.child);
  try {
    return await measure(channel, options);
  } finally {
    channel.close();
    await server.exited;
  }
}

/** Round trip of a small request over `wheelhouse serve` (WebSocket). */
export async function webSocketRoundTrip(options: RoundTripOptions): Promise<LatencySummary> {
  const server = await startServe({ home: options.home });
  const channel = await webSocketChannel(server.wsUrl);
  try {
    return await measure(channel, options);
  } finally {
    channel.close();
    await server.stop();
  }
}
