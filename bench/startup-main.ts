// `npm run bench:startup`: only the start-up figures (npm run bench runs them among all the others).
// CODEX_BIN=<native codex binary> adds Codex's; WHEELHOUSE_BASELINE_CLI=<other bin/wheelhouse.mjs> adds another build's.
import { startupTimes } from './startup.js';

const runs = Number(process.env['STARTUP_RUNS'] ?? 15);
process.stdout.write(`${JSON.stringify(await startupTimes({ runs }), null, 2)}\n`);
