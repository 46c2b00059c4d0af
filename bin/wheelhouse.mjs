#!/usr/bin/env node
// The `wheelhouse` command: runs the built runtime (npm run build makes dist/node/cli.js).
import { existsSync } from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

// V8's young generation starts at 1 MB per semi-space and doubles up to 16 MB as a
// session allocates: short-lived garbage then holds ~30 MB of resident memory. A growth
// factor of 1 keeps it at 1 MB: 10 MB less peak RSS over a session and during an output
// flood, throughput unchanged within noise (docs/performance.md, "Peak memory").
// V8 reads this flag each time it would grow the space, so setting it here works; flags
// that size the heap (--max-semi-space-size) are read only at start and would need the
// node command line. WHEELHOUSE_V8_DEFAULT_HEAP=1 leaves V8 as it is (to measure against).
// The runtime's host sets the same flag (electron/host/young-generation.ts) for the Electron
// main process and in-process embedders; here it comes first, before the bundle is loaded.
if (process.env.WHEELHOUSE_V8_DEFAULT_HEAP !== '1') v8.setFlagsFromString('--semi-space-growth-factor=1');

// V8's compile cache (Node >= 22.1) lets later starts skip compiling the bundle;
// older Nodes lack it and simply compile as before. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.(path.join(os.tmpdir(), 'wheelhouse-compile-cache'));

const entry = new URL('../dist/node/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('wheelhouse: not built yet; run `npm run build` in the Wheelhouse folder first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
