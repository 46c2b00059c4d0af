import type { Runtime } from '../host/runtime.js';
import { runtimeOptions, jobsOnExitLine, type JobsOnExit, type LogError } from './command-runtime.js';
import { RpcHost } from './rpc-host.js';
import { loadServeToken } from './serve-token.js';

export interface ServeOptions {
  readonly home: string;
  readonly port: number;
  readonly rotateToken: boolean;
  readonly jobs: JobsOnExit;
  readonly logError: LogError;
  /** Resolves on the first SIGINT or SIGTERM (listened for before the home is locked). */
  readonly stopSignal: Promise<void>;
  /** The built renderer to serve, if there is one (found by cli.ts, which knows where the bundle sits). */
  readonly staticRoot: string | undefined;
}

/** Opens the runtime, or says in one line why it cannot (e.g. the home is in use). */
async function openRuntime(home: string, logError: LogError): Promise<Runtime | undefined> {
  const { createRuntime } = await import('../host/create-runtime.js');
  try {
    return createRuntime(runtimeOptions(home, logError));
  } catch (error) {
    process.stderr.write(`wheelhouse: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
}

/** Running turns get this long to end cleanly on Ctrl+C before the server goes anyway. */
const TURN_STOP_GRACE_MS = 1_000;
/** With --stop-jobs-on-exit, running jobs get this long to end (SIGTERM, then SIGKILL after the grace). */
const JOB_STOP_GRACE_MS = 15_000;

/** `wheelhouse serve`: the browser UI, WebSocket and HTTP API on 127.0.0.1 until a signal comes. */
export async function runServe({ home, port, rotateToken, jobs, logError, stopSignal, staticRoot }: ServeOptions): Promise<number> {
  const runtime = await openRuntime(home, logError);
  if (!runtime) return 1;
  const host = new RpcHost(runtime);
  // Only `serve` needs HTTP and WebSocket (ws); `app-server` never loads them.
  const { startWebServer } = await import('./web-server.js');
  let server;
  try {
    const token = loadServeToken(home, { rotate: rotateToken });
    server = await startWebServer(host, { port, token, ...(staticRoot ? { staticRoot } : {}) });
  } catch (error) {
    process.stderr.write(`wheelhouse: cannot start on 127.0.0.1:${port}: ${error instanceof Error ? error.message : String(error)}\n`);
    host.close();
    runtime.close();
    return 1;
  }
  if (!staticRoot) process.stderr.write('wheelhouse: the UI is not built (run `npm run build`); serving the API only\n');
  process.stdout.write(`Wheelhouse is running at ${server.url}\n`);
  process.stdout.write(`WebSocket: ${server.wsUrl}\n`);
  process.stdout.write(`HTTP API: ${server.apiUrl} (Authorization: Bearer <the token above>)\n`);
  await stopSignal;
  process.stdout.write('stopping…\n');
  const line = jobsOnExitLine(runtime.runningJobCount(), jobs, 'serve', home);
  if (line) process.stdout.write(`${line}\n`);
  // A second Ctrl+C means "now": skip the clean shutdown.
  const forceExit = () => process.exit(130);
  process.once('SIGINT', forceExit);
  process.once('SIGTERM', forceExit);
  // The queue stops and running turns end first, so clients still hear turn/completed; never for long.
  let graceTimer: NodeJS.Timeout | undefined;
  const grace = jobs === 'stop' && runtime.runningJobCount() > 0 ? JOB_STOP_GRACE_MS : TURN_STOP_GRACE_MS;
  await Promise.race([runtime.shutdown({ jobs }), new Promise((resolve) => (graceTimer = setTimeout(resolve, grace)))]);
  // A pending timer would keep the process alive for the rest of the grace period.
  clearTimeout(graceTimer);
  await server.close();
  host.close();
  // Turns that did not end in time are cut off here (a no-op after a clean shutdown) and recovered as interrupted at the next start.
  runtime.close();
  process.stdout.write('stopped\n');
  return 0;
}

