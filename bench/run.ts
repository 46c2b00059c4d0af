/**
 * Benchmarks of the runtime's carriers (`npm run bench`). Prints one JSON
 * document; figures are compared with targets but never asserted.
 */
import os from 'node:os';
import { ensureCliBuilt } from '../test-support/build.js';
import { killAllChildren } from '../test-support/child-process.js';
import { TempDirs } from '../test-support/temp-dir.js';
import { notificationLoad } from './notification-load.js';
import { stdioRoundTrip, webSocketRoundTrip } from './round-trip.js';

const TARGETS = { eventLoopP99Ms: 20, roundTripMedianMs: 1 } as const;

async function main(): Promise<void> {
  ensureCliBuilt();
  const loadAtStart = Math.round(os.loadavg()[0]! * 100) / 100;
  const temp = new TempDirs();
  try {
    const roundTripOptions = { warmup: 500, requests: 5000 };
    const stdio = await stdioRoundTrip({ home: temp.make('wheelhouse-bench-'), ...roundTripOptions });
    const webSocket = await webSocketRoundTrip({ home: temp.make('wheelhouse-bench-'), ...roundTripOptions });
    const load = await notificationLoad({
      home: temp.make('wheelhouse-bench-'),
      receivers: 4,
      durationMs: 5000,
      window: 8,
    });
    const report = {
      machine: {
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
        cpus: os.cpus().length,
        // Other work on the machine skews every figure; this says how busy it was.
        loadAverage1mAtStart: loadAtStart,
      },
      serveEventLoopUnderNotificationLoad: {
        ...load,
        target: `p99 <= ${TARGETS.eventLoopP99Ms} ms`,
        meetsTarget: load.loadedEventLoop.p99Ms <= TARGETS.eventLoopP99Ms,
      },
      roundTripThreadLoadedList: {
        stdio: { ...stdio, meetsTarget: stdio.medianMs <= TARGETS.roundTripMedianMs },
        webSocket: { ...webSocket, meetsTarget: webSocket.medianMs <= TARGETS.roundTripMedianMs },
        target: `median <= ${TARGETS.roundTripMedianMs} ms`,
      },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await killAllChildren();
    temp.cleanup();
  }
}

await main();
