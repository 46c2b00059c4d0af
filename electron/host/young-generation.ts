/**
 * Keeps V8's young generation at its starting 1 MB per semi-space in every process that hosts
 * the runtime. By default V8 doubles the semi-spaces up to 16 MB while a process allocates, and
 * those pages stay resident however little is alive: over a 2,400-turn soak they added 8 MB of
 * RSS after warm-up, and ~25 MB to a session's peak (docs/performance.md, "Peak memory" and
 * "Memory over a soak"). V8 reads this flag each time it would grow the space, so it works set at
 * run time, but a space that already grew stays so: it must be set before the runtime's code is
 * evaluated. The CLI imports this module itself, just after `app-server` has answered
 * `initialize` (loading node:v8 would cost that answer ~10 ms of CPU) and before the runtime's
 * chunks load: in the bundle, the chunks create-runtime shares with other modules are evaluated
 * before it, and had grown the space to 8 MB. The Electron main process imports it first, and
 * create-runtime.ts first for runtimes built in process (tests, benches).
 * WHEELHOUSE_V8_DEFAULT_HEAP=1 leaves V8 as it is (to measure against).
 */
import v8 from 'node:v8';

if (process.env.WHEELHOUSE_V8_DEFAULT_HEAP !== '1') v8.setFlagsFromString('--semi-space-growth-factor=1');
