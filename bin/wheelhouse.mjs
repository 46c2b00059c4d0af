#!/usr/bin/env node
// The `wheelhouse` command: runs the built runtime (npm run build makes dist/node/cli.js).
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// V8's compile cache (Node >= 22.1) lets later starts skip compiling the bundle; older Nodes
// lack it (node:module is imported only where it can help: loading it costs start-up time).
// NODE_DISABLE_COMPILE_CACHE=1 turns it off. The young generation is kept small by the runtime
// itself as it loads (electron/host/young-generation.ts), after `app-server` has answered `initialize`.
if (Number(process.versions.node.split('.')[0]) >= 22) {
  const { default: module } = await import('node:module');
  module.enableCompileCache?.(path.join(os.tmpdir(), 'wheelhouse-compile-cache'));
}

const entry = new URL('../dist/node/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('wheelhouse: not built yet; run `npm run build` in the Wheelhouse folder first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
