// Preloaded into the servers under test with CARRIER_BENCH_GC_PROBE=1 (`node --import`): writes one line per
// garbage collection (`<wall-clock ms> <kind> <duration ms>`) to the file in GC_PROBE_FILE,
// so the benchmark counts the collections within its own timed window.
// Plain JavaScript on purpose: the measured process runs without a TS loader.
import fs from 'node:fs';
import { constants, performance, PerformanceObserver } from 'node:perf_hooks';

const file = process.env['GC_PROBE_FILE'];
if (file) {
  const fd = fs.openSync(file, 'a');
  const kinds = { [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major' };
  new PerformanceObserver((list) => {
    let lines = '';
    for (const entry of list.getEntries()) lines += `${performance.timeOrigin + entry.startTime} ${kinds[entry.detail?.kind] ?? 'other'} ${entry.duration}\n`;
    fs.writeSync(fd, lines);
  }).observe({ entryTypes: ['gc'] });
}
