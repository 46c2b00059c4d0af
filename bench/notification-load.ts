import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startServe } from '../test-support/serve-process.js';
import { requester, webSocketChannel, type RawChannel } from './raw-channel.js';
import { ms } from './stats.js';

/** Shape of the notification-load run. */
export interface NotificationLoadOptions {
  readonly home: string;
  readonly receivers: number;
  readonly durationMs: number;
  /** Requests the driver keeps in flight. */
  readonly window: number;
  /** Extra node flags for the server process (e.g. `--cpu-prof` to see where its time goes). */
  readonly serverNodeArgs?: readonly string[];
}

/** Event-loop delay percentiles sampled inside the server process. */
export interface EventLoopReport {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
  readonly samples: number;
}

/** Figures of one notification-load run. */
export interface NotificationLoadResult {
  readonly idleEventLoop: EventLoopReport;
  readonly loadedEventLoop: EventLoopReport;
  readonly receivers: number;
  readonly durationMs: number;
  readonly requestsCompleted: number;
  readonly notificationsPerReceiver: readonly number[];
  readonly notificationsPerSecondPerReceiver: number;
  readonly everyReceiverGotEveryNotification: boolean;
}

const probe = fileURLToPath(new URL('./event-loop-probe.mjs', import.meta.url));
const INIT = { clientInfo: { name: 'wheelhouse-bench', version: '0.0.0' } };

/** Asks the probe inside the server process for something and waits for its answer. */
function askProbe<T>(child: ChildProcess, message: 'reset' | 'report'): Promise<T> {
  return new Promise<T>((resolve) => {
    const listener = (reply: unknown) => {
      if (typeof reply === 'object' && reply !== null && (reply as { type?: unknown }).type === message) {
        child.off('message', listener);
        const { type: _type, ...figures } = reply as { type: string };
        resolve(figures as T);
      }
    };
    child.on('message', listener);
    child.send(message);
  });
}

function until(deadline: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - performance.now())));
}

/**
 * Event-loop delay of the `wheelhouse serve` process while `receivers`
 * WebSocket clients receive a sustained notification stream, driven by a
 * separate client creating and renaming threads as fast as the server answers.
 */
export async function notificationLoad(options: NotificationLoadOptions): Promise<NotificationLoadResult> {
  const server = await startServe({ home: options.home, nodeArgs: [...(options.serverNodeArgs ?? []), '--import', probe], ipc: true });
  const child = server.process.child;
  const channels: RawChannel[] = [];
  try {
    const counts: number[] = [];
    for (let i = 0; i < options.receivers; i++) {
      const channel = await webSocketChannel(server.wsUrl);
      channels.push(channel);
      await requester(channel)('initialize', INIT);
      const index = counts.push(0) - 1;
      channel.onText((text) => {
        if (text.startsWith('{"method"')) counts[index]! += 1;
      });
    }
    const driverChannel = await webSocketChannel(server.wsUrl);
    channels.push(driverChannel);
    const request = requester(driverChannel);
    await request('initialize', INIT);

    // Idle baseline: the same sampling with nobody talking.
    await askProbe(child, 'reset');
    await until(performance.now() + 1000);
    const idleEventLoop = await askProbe<EventLoopReport>(child, 'report');

    await askProbe(child, 'reset');
    counts.fill(0);
    const started = performance.now();
    const deadline = started + options.durationMs;
    let completed = 0;
    let lastThread: string | null = null;
    let step = 0;
    const worker = async () => {
      while (performance.now() < deadline) {
        const current = step++;
        if (current % 2 === 0 || lastThread === null) {
          const text = await request('thread/start', { cwd: options.home });
          lastThread = (JSON.parse(text) as { result: { thread: { id: string } } }).result.thread.id;
        } else {
          await request('thread/name/set', { threadId: lastThread, name: `renamed ${current}` });
        }
        completed++;
      }
    };
    await Promise.all(Array.from({ length: options.window }, worker));
    const elapsed = performance.now() - started;
    const loadedEventLoop = await askProbe<EventLoopReport>(child, 'report');

    // Each request published exactly one notification; wait until every receiver has it.
    const settle = performance.now() + 5000;
    while (counts.some((c) => c < completed) && performance.now() < settle) await until(performance.now() + 20);
    return {
      idleEventLoop,
      loadedEventLoop,
      receivers: options.receivers,
      durationMs: Math.round(elapsed),
      requestsCompleted: completed,
      notificationsPerReceiver: [...counts],
      notificationsPerSecondPerReceiver: ms(completed / (elapsed / 1000)),
      everyReceiverGotEveryNotification: counts.every((c) => c === completed),
    };
  } finally {
    for (const channel of channels) channel.close();
    if (child.connected) child.disconnect();
    await server.stop();
  }
}
