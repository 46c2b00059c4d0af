// Preloaded into the measured `wheelhouse serve` process (`node --import`):
// samples its event-loop delay and answers the benchmark over the IPC channel.
// Plain JavaScript on purpose: the measured process runs without a TS loader.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();

const toMs = (ns) => Math.round(ns / 1e3) / 1e3;

process.on('message', (message) => {
  if (message === 'reset') {
    histogram.reset();
    process.send?.({ type: 'reset' });
  } else if (message === 'report') {
    process.send?.({
      type: 'report',
      p50Ms: toMs(histogram.percentile(50)),
      p99Ms: toMs(histogram.percentile(99)),
      maxMs: toMs(histogram.max),
      meanMs: toMs(histogram.mean),
      samples: histogram.count,
    });
  }
});
// The channel must not keep the server alive once it has been told to stop.
process.channel?.unref();
