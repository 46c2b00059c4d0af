/**
 * Keeps V8's young generation at its starting 1 MB per semi-space in every process that hosts
 * the runtime: the CLI (electron/server/cli.ts imports it just after `app-server` has answered
 * `initialize`, since loading node:v8 would cost that answer ~10 ms of CPU, and before the
 * runtime's chunks load: in a bundle, the chunks a module shares with others are evaluated before
 * it, and they grew the space to 8 MB when this came with create-runtime), the Electron main
 * process and anything embedding the runtime in process (the benches). By default V8 doubles the semi-spaces up to 16 MB while a process allocates, and
 * those pages stay resident however little is alive: over a 2,400-turn soak they added 8 MB of
 * RSS after warm-up, and ~25 MB to a session's peak (docs/performance.md, "Peak memory" and
 * "Memory over a soak"). V8 reads this flag each time it would grow the space, so it works set at
 * run time; a space that already grew stays so until V8 shrinks it at a quiet collection, which
 * is why this module is imported first, before the rest of the runtime is evaluated.
 * WHEELHOUSE_V8_DEFAULT_HEAP=1 leaves V8 as it is (to measure against).
 */
import v8 from 'node:v8';

if (process.env.WHEELHOUSE_V8_DEFAULT_HEAP !== '1') v8.setFlagsFromString('--semi-space-growth-factor=1');
