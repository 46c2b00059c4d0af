// `node --import ./test-support/module-trace.mjs …` logs every module the
// process resolves to the file named by WHEELHOUSE_TRACE_MODULES, and the line
// `(first output)` when it first writes to stdout: what it loaded before it
// answered its first request, and what after.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { FIRST_OUTPUT } from './module-trace-hooks.mjs';

const logFile = process.env.WHEELHOUSE_TRACE_MODULES;
register('./module-trace-hooks.mjs', import.meta.url, { data: { logFile } });

const write = process.stdout.write;
process.stdout.write = function firstWriteMarked(...args) {
  process.stdout.write = write;
  // The hooks append each URL before its module loads, so every line above this one loaded before the output.
  appendFileSync(logFile, `${FIRST_OUTPUT}\n`);
  return write.apply(this, args);
};
