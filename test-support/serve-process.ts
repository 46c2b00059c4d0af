import readline from 'node:readline';
import { spawnTracked, type ChildExit, type TrackedChild } from './child-process.js';
import { cliBin, repoRoot } from './paths.js';

/** `wheelhouse serve` running as a real child process. */
export interface ServeProcess {
  readonly process: TrackedChild;
  /** `http://127.0.0.1:PORT/#token=TOKEN` as printed for the user. */
  readonly url: string;
  /** `ws://127.0.0.1:PORT/rpc?token=TOKEN`. */
  readonly wsUrl: string;
  readonly port: number;
  readonly token: string;
  /** Every line printed on stdout so far. */
  stdout(): readonly string[];
  /** SIGTERM, then the exit. */
  stop(): Promise<ChildExit>;
}

/** How to start `wheelhouse serve` for a test or benchmark. */
export interface StartServeOptions {
  readonly home: string;
  /** Extra node flags placed before the script (benchmarks preload a probe). */
  readonly nodeArgs?: readonly string[];
  /** `'ipc'` adds an IPC channel (benchmarks talk to their probe through it). */
  readonly ipc?: boolean;
  readonly timeoutMs?: number;
  /** Extra arguments after `serve` (e.g. `--rotate-token`). */
  readonly args?: readonly string[];
  /** Extra environment variables for the child. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Leave running jobs running when the server stops (its default). Off here: a test harness stops
   * what its server started (`--stop-jobs-on-exit`), unless the test is about keeping them.
   */
  readonly keepJobsOnExit?: boolean;
  /** Another build's `bin/wheelhouse.mjs` (a benchmark's baseline); this checkout's by default. */
  readonly cli?: string;
}

/** Starts `node bin/wheelhouse.mjs serve --port 0` and waits for the URLs it prints. */
export function startServe(options: StartServeOptions): Promise<ServeProcess> {
  const tracked = spawnTracked(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      options.cli ?? cliBin,
      'serve',
      '--port',
      '0',
      '--home',
      options.home,
      ...(options.keepJobsOnExit ? [] : ['--stop-jobs-on-exit']),
      ...(options.args ?? []),
    ],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe', ...(options.ipc ? (['ipc'] as const) : [])],
      // Keys a test enters go to the home's private file, never the keychain of the machine running the tests.
      env: { ...process.env, WHEELHOUSE_KEY_STORAGE: 'file', WHEELHOUSE_HOME: options.home, ...options.env },
    },
  );
  const stdout = tracked.child.stdout;
  if (!stdout) throw new Error('serve spawned without stdout');
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise<ServeProcess>((resolve, reject) => {
    let url: string | undefined;
    const printed: string[] = [];
    const lines = readline.createInterface({ input: stdout, crlfDelay: Infinity });
    const timer = setTimeout(() => fail(`serve printed no URLs within ${timeoutMs} ms`), timeoutMs);
    let ready = false;
    const fail = (why: string) => {
      if (ready) return;
      clearTimeout(timer);
      lines.close();
      void tracked.stop('SIGKILL');
      reject(new Error(`${why}\nstderr:\n${tracked.stderr()}`));
    };
    void tracked.exited.then((exit) => fail(`serve exited early (${JSON.stringify(exit)})`));
    lines.on('line', (line) => {
      printed.push(line);
      const running = /^Wheelhouse is running at (http:\/\/\S+)$/.exec(line);
      if (running) url = running[1];
      const ws = /^WebSocket: (ws:\/\/\S+)$/.exec(line);
      if (!ws || url === undefined) return;
      clearTimeout(timer);
      ready = true;
      const wsUrl = ws[1]!;
      const parsed = new URL(wsUrl);
      resolve({
        process: tracked,
        url,
        wsUrl,
        port: Number(parsed.port),
        token: parsed.searchParams.get('token') ?? '',
        stdout: () => printed,
        stop: () => tracked.stop('SIGTERM'),
      });
    });
  });
}
