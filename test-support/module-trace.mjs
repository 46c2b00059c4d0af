// `node --import ./test-support/module-trace.mjs …` logs every module the
// process resolves to the file named by WHEELHOUSE_TRACE_MODULES, and the line
// `(first output)` when it first writes to stdout: what it loaded before it
// answered its first request, and what after.
import fs, { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { FIRST_OUTPUT } from './module-trace-hooks.mjs';

const logFile = process.env.WHEELHOUSE_TRACE_MODULES;
register('./module-trace-hooks.mjs', import.meta.url, { data: { logFile } });

// The first output goes through process.stdout or, for `app-server`'s first answer, straight to fd 1.
// The hooks append each URL before its module loads, so every line above the mark loaded before the output.
let marked = false;
const mark = () => {
  if (!marked) appendFileSync(logFile, `${FIRST_OUTPUT}\n`);
  marked = true;
};
const write = process.stdout.write;
process.stdout.write = function firstWriteMarked(...args) {
  process.stdout.write = write;
  mark();
  return write.apply(this, args);
};
const writeSync = fs.writeSync;
fs.writeSync = function firstWriteSyncMarked(fd, ...args) {
  if (fd === 1) mark();
  return writeSync.call(this, fd, ...args);
};
