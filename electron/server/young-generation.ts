/**
 * V8's young generation starts at 1 MB per semi-space and doubles up to 16 MB as a
 * session allocates: short-lived garbage then holds ~30 MB of resident memory. A growth
 * factor of 1 keeps it where it is: 10 MB less peak RSS over a session and during an output
 * flood, throughput unchanged within noise (docs/performance.md, "Peak memory").
 * V8 reads this flag each time it would grow the space, so setting it while running works;
 * flags that size the heap (--max-semi-space-size) are read only at start and would need the
 * node command line. `app-server` sets it just after answering its first request: loading
 * node:v8 costs ~10 ms of CPU that the answer need not wait for, and the space is the same
 * 2 MB either way by then. WHEELHOUSE_V8_DEFAULT_HEAP=1 leaves V8 as it is (to measure against).
 */
export async function keepYoungGenerationSmall(): Promise<void> {
  if (process.env['WHEELHOUSE_V8_DEFAULT_HEAP'] === '1') return;
  const v8 = await import('node:v8');
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}
