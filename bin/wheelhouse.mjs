#!/usr/bin/env node
// The `wheelhouse` command: runs the built runtime (npm run build makes dist/node/cli.js).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/node/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('wheelhouse: not built yet; run `npm run build` in the Wheelhouse folder first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
