// `node --import ./test-support/module-trace.mjs …` logs every module the
// process resolves to the file named by WHEELHOUSE_TRACE_MODULES.
import { register } from 'node:module';

register('./module-trace-hooks.mjs', import.meta.url, { data: { logFile: process.env.WHEELHOUSE_TRACE_MODULES } });
